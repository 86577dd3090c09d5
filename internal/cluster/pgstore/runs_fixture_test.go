package pgstore

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
)

// admitRuns publishes n every-minute triggers in a fresh project through
// the admin role and admits them (admitDue): the Runs are exactly what the
// scheduler writes. It returns the project id and the run ids keyed by
// trigger name (t000, t001, …).
func (s *store) admitRuns(t testing.TB, projectName string, n int) (string, map[string]string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "project: %s\ntasks:\n  - name: job\n    script: echo hi\ntriggers:\n", projectName)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - {name: t%03d, task: job, cron: \"* * * * *\", timezone: UTC}\n", i)
	}
	doc, err := apply.Parse(projectName+".yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	svc := catalog.Service{Store: s.admin, Executor: task.RemoteWorker, NowMs: func() int64 { return time.Now().UnixMilli() }}
	if _, err := apply.Apply(t.Context(), svc, doc, ids.New); err != nil {
		t.Fatalf("apply: %v", err)
	}
	var projectID string
	if err := s.super.QueryRow(t.Context(), `SELECT id FROM qinglong.projects WHERE name = $1`, projectName).Scan(&projectID); err != nil {
		t.Fatal(err)
	}
	s.admitDue(t, "project_id", projectID, n)
	rows, err := s.super.Query(t.Context(), `SELECT tr.name, r.id FROM qinglong.runs r
		JOIN qinglong.triggers tg ON tg.id = r.trigger_id
		JOIN qinglong.trigger_revisions tr ON tr.trigger_id = tg.id AND tr.revision = tg.current_revision
		WHERE r.project_id = $1`, projectID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, id string
		if err := rows.Scan(&name, &id); err != nil {
			t.Fatal(err)
		}
		out[name] = id
	}
	if len(out) != n {
		t.Fatalf("%d runs for %d triggers", len(out), n)
	}
	return projectID, out
}

// parkMs is how far past the database clock admitDue parks the next
// occurrence of the triggers it admitted: longer than any test runs.
const parkMs = 3_600_000

// admitDue moves the cursors of the schedules whose column (project_id or
// trigger_id) is id a second into the past by the database clock, admits
// them with one real round over the runtime role, which must admit want,
// and parks their next occurrences an hour out. Every-minute triggers left
// at their next minute come due again once the clock crosses it, and the
// test's next round (another admitDue, as a later admitRuns runs) would
// admit them beside its own: under load a test spans a minute boundary.
func (s *store) admitDue(t testing.TB, column, id string, want int) {
	t.Helper()
	s.exec(t, `UPDATE qinglong.trigger_schedules
		SET next_fire_at_ms = `+ClockMsSQL+` - 1000, state_version = state_version + 1
		WHERE `+column+` = $1`, id)
	sum, err := schedule.Round(t.Context(), s.runtime, schedule.RoundConfig{PageSize: schedule.MaxPageSize, Parallel: 4, GraceMs: 30_000, NewIDs: ids.Fill})
	if err != nil || sum.Counts[schedule.Admitted] != want {
		t.Fatalf("round admitted %v (errors %v, err %v), want %d", sum.Counts, sum.Errors, err, want)
	}
	s.exec(t, `UPDATE qinglong.trigger_schedules
		SET next_fire_at_ms = next_fire_at_ms + $2, state_version = state_version + 1
		WHERE `+column+` = $1`, id, parkMs)
}
