package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
)

// maxRunningCases are the guarantees of a project's cap on its Runs at
// once as a definitions file sets it: stored as written, said by an
// export so that applying the export changes nothing, and an apply
// saying how it changes.
func maxRunningCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"ExportWritesMaxRunningBack":          testExportWritesMaxRunningBack,
		"AnApplySaysHowTheProjectsCapChanges": testAnApplySaysHowTheCapChanges,
	}
}

// cappedFile is a definitions file of project team with one task and
// trigger, its maxRunning line as given ("" leaves it out).
func cappedFile(t *testing.T, maxRunning string) *apply.Document {
	t.Helper()
	s := "project: team\n"
	if maxRunning != "" {
		s += "maxRunning: " + maxRunning + "\n"
	}
	s += "tasks:\n  - {name: job, command: [/usr/bin/env, \"true\"]}\n" +
		"triggers:\n  - {name: tick, task: job, cron: \"7 * * * *\", timezone: UTC, misfire: skip}\n"
	doc, err := apply.Parse("team.yaml", []byte(s))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, s)
	}
	return doc
}

func testExportWritesMaxRunningBack(t *testing.T, f Fixture) {
	applyFile(t, f, cappedFile(t, "3"))
	p, err := f.Catalog.ProjectByName(t.Context(), "team")
	if err != nil || p.MaxRunning != 3 {
		t.Fatalf("project read back %+v, %v; want maxRunning 3", p, err)
	}
	ex, err := apply.ExportProject(t.Context(), f.Definitions, "team", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ex.YAML), "\nmaxRunning: 3\n") {
		t.Fatalf("export lacks maxRunning: 3:\n%s", ex.YAML)
	}
	doc, err := apply.Parse("export.yaml", ex.YAML)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range applyFile(t, f, doc) {
		if r.Change != catalog.Unchanged {
			t.Fatalf("applying the export: %s; want every object unchanged (the cap kept)", r)
		}
	}
	applyFile(t, f, cappedFile(t, ""))
	if ex, err = apply.ExportProject(t.Context(), f.Definitions, "team", nil); err != nil || strings.Contains(string(ex.YAML), "maxRunning") {
		t.Fatalf("the export of a project without a cap, %v:\n%s\nwant no maxRunning", err, ex.YAML)
	}
}

func testAnApplySaysHowTheCapChanges(t *testing.T, f Fixture) {
	applyFile(t, f, cappedFile(t, ""))
	for _, step := range []struct {
		maxRunning, field string
		want              int
	}{
		{"2", "maxRunning none → 2", 2},
		{"5", "maxRunning 2 → 5", 5},
		{"", "maxRunning 5 → none", 0},
	} {
		res := applyFile(t, f, cappedFile(t, step.maxRunning))
		if res[0].Kind != "project" || res[0].Change != catalog.Updated || !slices.Equal(res[0].Fields, []string{step.field}) {
			t.Fatalf("applying maxRunning %q: %s; want the project updated (%s)", step.maxRunning, res[0], step.field)
		}
		for _, r := range res[1:] {
			if r.Change != catalog.Unchanged {
				t.Fatalf("applying maxRunning %q: %s; a cap publishes no revision of a task or trigger", step.maxRunning, r)
			}
		}
		if p, err := f.Catalog.ProjectByName(t.Context(), "team"); err != nil || p.MaxRunning != step.want {
			t.Fatalf("after maxRunning %q the project reads %+v, %v; want %d", step.maxRunning, p, err, step.want)
		}
	}
}
