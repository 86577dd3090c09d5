package sqlitestore

import (
	"os"
	"reflect"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
)

// A database written before the stored command form was shared still
// works: a task revision and its execution revision holding the former
// encoding read back, verify their digests and admit.
func TestCommandsStoredInTheFormerEncodingStillReadAndAdmit(t *testing.T) {
	t.Parallel()
	legacy, err := os.ReadFile("../../core/task/testdata/legacy-sqlitestore/runas-killgrace.json")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	p := e.project(t, "alpha")
	spec := task.Spec{Name: "job", Enabled: true, Labels: map[string]string{"team": "ops"},
		Command: task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: "exec sleep 60", TimeoutMs: 120_000,
			RunAs: task.RunAs{User: "svc", Group: "svc-data"}, KillGraceMs: 1500}}
	rev, _, err := e.service().PublishTask(t.Context(), p.ID, ids.New(), 0, ids.New(), spec)
	if err != nil {
		t.Fatal(err)
	}
	tg := e.trigger(t, p, rev, "tick", ids.New(), 0, everyMinute, true)
	if n := currentlyEncoded(t, e); n != 2 {
		t.Fatalf("%d rows hold the current encoding after publishing, want 2", n)
	}
	formerSpec := `{"name":"job","enabled":true,"labels":{"team":"ops"},"command":` + string(legacy) + `}`
	if _, err := e.raw.Exec(`DROP TRIGGER task_revisions_immutable; DROP TRIGGER execution_revisions_immutable`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.raw.Exec(`UPDATE task_revisions SET spec_json = ?`, formerSpec); err != nil {
		t.Fatal(err)
	}
	if _, err := e.raw.Exec(`UPDATE execution_revisions SET command_json = ?`, string(legacy)); err != nil {
		t.Fatal(err)
	}
	if n := currentlyEncoded(t, e); n != 0 {
		t.Fatalf("%d rows still hold the current encoding", n)
	}
	got, err := e.store.TaskByName(t.Context(), p.ID, "job")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Spec, rev.Spec) || got.ContentDigest != rev.ContentDigest {
		t.Fatalf("former encoding reads back as %+v (%s), want %+v (%s)", got.Spec, got.ContentDigest, rev.Spec, rev.ContentDigest)
	}
	e.due(t, tg.TriggerID, 1_000)
	if res, err := e.commit(t, commitParams(t, e.takeOne(t))); err != nil || res.Outcome != schedule.Admitted {
		t.Fatalf("admission over an execution revision in the former encoding: %s (%s), %v", res.Outcome, res.Reason, err)
	}
}

// currentlyEncoded counts the stored commands in the current (versioned)
// encoding.
func currentlyEncoded(t *testing.T, e *env) int {
	t.Helper()
	var n int
	err := e.raw.QueryRow(`SELECT (SELECT count(*) FROM task_revisions WHERE json_extract(spec_json, '$.command.format') IS NOT NULL)
		+ (SELECT count(*) FROM execution_revisions WHERE json_extract(command_json, '$.format') IS NOT NULL)`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
