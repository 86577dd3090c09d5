package singlecli

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/single/server"
)

// A handed-over pause keeps when it began at the source, not only its
// note and who paused: `apply --adopt-state` sets the trigger's own pause
// (alice's, three days back) and the project's (bob's, two days back)
// with their starts, as `triggers show` and `projects show` read them on
// the target.
func TestAdoptedPausesKeepTheirStartNoteAndActor(t *testing.T) {
	t.Parallel()
	src, _ := handedSource(t)
	now := time.Now().UnixMilli()
	ownSince, projectSince := now-3*24*3600_000, now-2*24*3600_000
	db, err := sql.Open("sqlite", server.LayoutOf(src).DB+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE trigger_schedule_audit SET at_ms = ? WHERE action = 'pause' AND actor = 'alice'`, []any{ownSince}},
		{`UPDATE trigger_schedule_audit SET at_ms = ? WHERE action = 'pause' AND actor = 'bob'`, []any{projectSince}},
		{`UPDATE trigger_schedules SET paused_at_ms = CASE paused_with_project WHEN 1 THEN ? ELSE ? END`, []any{projectSince, ownSince}},
		{`UPDATE project_pauses SET at_ms = ?`, []any{projectSince}},
	} {
		if _, err := db.ExecContext(t.Context(), q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "handover")
	if code, _, errOut := ql(t, "export", "--all", "--with-state", "-o", out, "--data-dir", src); code != 0 {
		t.Fatalf("export --all --with-state: exit %d %q", code, errOut)
	}
	dst := installedDir(t)
	if code, stdout, errOut := ql(t, "apply", "-f", filepath.Join(out, "moving.yaml"), "--adopt-state", filepath.Join(out, cli.HandoverStateFile), "--data-dir", dst); code != 0 {
		t.Fatalf("apply --adopt-state: exit %d %q %q", code, stdout, errOut)
	}
	for _, c := range []struct {
		trigger, note, actor string
		since                int64
	}{{"halfhour", "upstream down", "alice", ownSince}, {"hourly", "migration", "bob", projectSince}} {
		d := showJSON(t, dst, "moving/"+c.trigger)
		if !d.Paused || d.PausedAtMs == nil || *d.PausedAtMs != c.since || d.PauseNote != c.note || len(d.Audit) == 0 ||
			d.Audit[0].Action != "pause" || d.Audit[0].Actor != c.actor || d.Audit[0].AtMs != c.since {
			t.Errorf("%s in the target: paused %v since %v, note %q, audit %+v; want paused since %d (the source's start), note %q, by %s",
				c.trigger, d.Paused, d.PausedAtMs, d.PauseNote, d.Audit, c.since, c.note, c.actor)
		}
	}
	code, stdout, errOut := ql(t, "projects", "show", "moving", "-o", "json", "--data-dir", dst)
	var p view.Project
	if err := json.Unmarshal([]byte(stdout), &p); code != 0 || err != nil || p.Pause == nil {
		t.Fatalf("projects show: exit %d %q %q (%v)", code, stdout, errOut, err)
	}
	if !p.Pause.Paused || p.Pause.AtMs != projectSince || p.Pause.Note != "migration" || p.Pause.Actor != "bob" {
		t.Errorf("the project's pause in the target: %+v; want paused since %d by bob, note \"migration\"", *p.Pause, projectSince)
	}
}
