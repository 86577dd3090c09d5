package storetest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
)

// RunDefinitions runs the guarantees of an export (catalog.
// DefinitionsReader, apply.ExportProject) against an adapter.
func RunDefinitions(t *testing.T, newFixture Factory) {
	tests := map[string]func(*testing.T, Fixture){
		"AnExportAppliesBackAsUnchangedForEveryObject":            testExportRoundTrip,
		"AnArchivedProjectExportsArchivedWithANote":               testExportArchived,
		"ATriggerOfAnOlderTaskRevisionIsNoted":                    testExportOlderTask,
		"AProjectsDefinitionsAreReadWholeInNameOrder":             testDefinitionsReadWhole,
		"AProjectsNameIsFoundByItsID":                             testProjectNameOf,
		"AnUnknownProjectsRefusalNamesTheProjectsThere":           testExportUnknownProject,
		"AMissingProjectNamesOnlyTheCallersProjects":              testMissingProjectNamesOnlyTheCallersProjects,
		"AnEnabledTriggerOfATaskDisabledSinceIsNotedAsRefused":    testExportDisabledTask,
		"EverySecretTheDefinitionsReferToIsListedWithItsUses":     testSecretUses,
		"ASecretsListingSaysWhichUsedNamesTheFileLacks":           testSecretListing,
		"TriggersAFileLeavesOutFollowTheirChangedTask":            testTriggersFollowTheirChangedTask,
		"AnEnabledTriggerStopsWithTheTaskAFileDisables":           testAnEnabledTriggerStopsWithTheTaskAFileDisables,
		"ARulesScopeNamesTasksAndTriggersOfTheFileOrOfItsProject": testRuleScopesNameTheProjects,
		"AnEditedScriptChangesOnlyItsTask":                        testAnEditedScriptChangesOnlyItsTask,
		"AnEditedScheduleChangesOnlyItsTrigger":                   testAnEditedScheduleChangesOnlyItsTrigger,
		"AnEditOfAnEntryChangedSinceItsFormIsRefused":             testAnEditOfAnEntryChangedSinceItsFormIsRefused,
		"WhatAnEditFormCannotShowIsRefused":                       testWhatAnEditFormCannotShowIsRefused,
		"TheConsolesFormsKeepTheTitlesOfWhatTheyWrite":            testTheConsolesFormsKeepTheTitles,
		"AnEditFilesApplyRefusesAnEntryChangedSinceItWasWritten":  testAnEditFilesApplyRefusesAnEntryChangedSinceItWasWritten,
		"AFileWithoutStatusLeavesTheProjectsStatus":               testAFileWithoutStatusLeavesTheProjectsStatus,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newFixture(t))
		})
	}
}

// EveryField is a definitions file setting every field a task, a trigger
// and a project's notifications have, secrets by reference, and a task no
// trigger runs: what an export must give back whole (the command line's
// tests export it too).
const EveryField = `project: rich
notifications:
  channels:
    hook: {type: webhook, url: "https://hooks.example.com/q", signingSecret: hook-key, tokenSecret: hook-token}
    tg: {type: telegram, urlSecret: tg-url, chatId: "-1001234567890"}
  rules:
    - {on: failed, channel: hook}
    - {on: skipped, reasons: [misfire, paused], channel: hook}
    - {consecutive_failures: 3, channel: tg}
    - {on: recovered, channel: tg}
    - {on: succeeded, tasks: [lonely, alpha-shell], triggers: [t0], channel: tg}
    - {on: finished, triggers: [t1], channel: hook}
    - {on: skipped, tasks: [zeta-argv], channel: tg}
tasks:
  - name: zeta-argv
    command: ["/usr/bin/env", "date", "--utc"]
    labels: {team: ops}
    env: {B: "2", A: {secret: api-token}}
    workingDir: /tmp
    timeout: 90s
    killGrace: 1500ms
    runAs: {user: svc, group: wheel}
    retry: {maxAttempts: 3, backoff: 10s, on: [lost, timed_out]}
    placement: {labels: {region: eu}}
  - name: alpha-shell
    shell: /bin/bash
    script: |
      echo "yes: no"
      echo 'true'
  - name: lonely
    command: ["/bin/true"]
    enabled: false
triggers:
  - name: t1
    task: alpha-shell
    cron: "*/10 * * * * *"
    timezone: Asia/Shanghai
    misfire: skip
    jitter: 3s
    startAt: "2026-01-01T00:00:00.250Z"
    endAt: "2099-01-01T08:00:00+08:00"
    overlap: queue_one
  - name: t0
    task: zeta-argv
    cron: "0 3 * * *"
    timezone: UTC
    enabled: false
    catchUpWindow: 10m
`

// parse reads a definitions file the suite wrote or exported.
func parse(t *testing.T, name string, text []byte) *apply.Document {
	t.Helper()
	doc, err := apply.Parse(name, text)
	if err != nil {
		t.Fatalf("%s does not parse: %v\n%s", name, err, text)
	}
	return doc
}

// export is apply.ExportProject of name through the fixture's reader.
func export(t *testing.T, f Fixture, name string) apply.Exported {
	t.Helper()
	ex, err := apply.ExportProject(t.Context(), f.Definitions, name, nil)
	if err != nil {
		t.Fatalf("export %s: %v", name, err)
	}
	return ex
}

// requireUnchanged applies ex back and fails unless every object of it
// is unchanged.
func requireUnchanged(t *testing.T, f Fixture, ex apply.Exported) {
	t.Helper()
	res, err := apply.Apply(t.Context(), f.Service, parse(t, "export.yaml", ex.YAML), ids.New)
	if err != nil {
		t.Fatalf("apply the export: %v\n%s", err, ex.YAML)
	}
	for _, r := range res {
		if r.Change != catalog.Unchanged {
			t.Errorf("applying the export: %s; want every object unchanged\n%s", r, ex.YAML)
		}
	}
}

func testExportRoundTrip(t *testing.T, f Fixture) {
	doc := parse(t, "rich.yaml", []byte(EveryField))
	applyFile(t, f, doc)
	ex := export(t, f, "rich")
	if ex.Tasks != 3 || ex.Triggers != 2 || len(ex.Notes) != 0 {
		t.Fatalf("export of %d tasks, %d triggers, notes %v; want 3, 2 and none\n%s", ex.Tasks, ex.Triggers, ex.Notes, ex.YAML)
	}
	back := parse(t, "export.yaml", ex.YAML)
	if len(back.Tasks) != 3 || back.Tasks[1].Spec.Name != "lonely" || back.Notifications.Encode() != doc.Notifications.Encode() {
		t.Fatalf("the export lacks the task no trigger runs, or changes the notifications:\n%s", ex.YAML)
	}
	requireUnchanged(t, f, ex)
	for _, ref := range []string{"secret: api-token", "signingSecret: hook-key", "tokenSecret: hook-token", "urlSecret: tg-url"} {
		if !strings.Contains(string(ex.YAML), ref) {
			t.Errorf("the export lacks the reference %q:\n%s", ref, ex.YAML)
		}
	}
	if again := export(t, f, "rich"); !bytes.Equal(again.YAML, ex.YAML) {
		t.Fatalf("a second export differs from the first:\n%s\n---\n%s", ex.YAML, again.YAML)
	}
}
