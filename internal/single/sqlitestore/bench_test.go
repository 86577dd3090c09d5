package sqlitestore

import (
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

const benchTriggers = 10_000

// daily never comes due again within a measurement, so every admission
// measured is one the benchmark made due.
var daily = trigger.Cron{Expression: "0 0 * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}

// Baseline statements: the admission's write shape (run, attempt, two
// events, schedule update in one BEGIN IMMEDIATE transaction) without its
// reads, verification or decision.
const (
	baselineRunSQL = `INSERT INTO runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
		idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms)
		VALUES (?, ?, ?, ?, ?, 1, ?, ?, 0, 'queued', 2, 2, 0, 0, 0)`
	baselineAttemptSQL  = `INSERT INTO attempts (id, run_id, number, executor, state, created_at_ms) VALUES (?, ?, 1, 'local_process', 'claimed', 0)`
	baselineEventSQL    = `INSERT INTO run_events (run_id, seq, name, payload, created_at_ms) VALUES (?, ?, 'run.created', '{}', 0)`
	baselineScheduleSQL = `UPDATE trigger_schedules SET state_version = state_version + 1 WHERE trigger_id = ?`
	allDueSQL           = `UPDATE trigger_schedules SET next_fire_at_ms = ?, state_version = state_version + 1`
)

// BenchmarkStandaloneAdmissions measures admissions per second with 10,000
// due triggers through the standalone round (page 16, one writer, each
// decision its own BEGIN IMMEDIATE transaction), against a plain prepared
// insert transaction of the same write shape measured in the same run on the
// same file. Target: ≥ 1,000 admissions/s.
func BenchmarkStandaloneAdmissions(b *testing.B) {
	e := newEnv(b)
	p := e.projectTB(b, "bench")
	tk := e.taskTB(b, p.ID)
	triggers := make([]string, benchTriggers)
	for i := range triggers {
		triggers[i] = e.triggerTB(b, p.ID, tk, fmt.Sprintf("t%05d", i))
	}
	cfg := schedule.RoundConfig{PageSize: schedule.DefaultPageSize, GraceMs: (5 * time.Minute).Milliseconds(), Parallel: 1, NewID: ids.New}
	drain(b, e, cfg, 0) // initialise every cursor
	bl := prepareBaseline(b, e)
	var admitTime, baseTime time.Duration
	admitted, inserted := 0, 0
	for b.Loop() {
		b.StopTimer()
		if _, err := e.raw.Exec(allDueSQL, e.clock.NowMs()-1_000); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		admitted += drain(b, e, cfg, benchTriggers)
		admitTime += time.Since(start)

		start = time.Now()
		for _, tg := range triggers {
			bl.insert(b, e, p.ID, tk, tg)
		}
		inserted += len(triggers)
		baseTime += time.Since(start)
	}
	admissionsPerSec := float64(admitted) / admitTime.Seconds()
	insertsPerSec := float64(inserted) / baseTime.Seconds()
	b.ReportMetric(admissionsPerSec, "admissions/s")
	b.ReportMetric(insertsPerSec, "baseline-tx/s")
	b.ReportMetric(admissionsPerSec/insertsPerSec, "ratio")
}

// drain runs rounds until one takes nothing and returns the admissions; it
// fails unless exactly want were admitted.
func drain(b *testing.B, e *env, cfg schedule.RoundConfig, want int) int {
	admitted := 0
	for {
		sum, err := schedule.Round(b.Context(), e.store, cfg)
		if err != nil || len(sum.Errors) > 0 {
			b.Fatalf("round: %v %v", err, sum.Errors)
		}
		admitted += sum.Counts[schedule.Admitted]
		if sum.Taken == 0 {
			break
		}
	}
	if admitted != want {
		b.Fatalf("admitted %d, want %d", admitted, want)
	}
	return admitted
}

// baseline is the plain transaction, with its statements prepared like the
// store's and committed at the same (routine) durability.
type baseline struct {
	run, attempt, event, schedule *sql.Stmt
}

func prepareBaseline(b *testing.B, e *env) baseline {
	prep := func(q string) *sql.Stmt {
		st, err := e.store.writer.Prepare(q)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		return st
	}
	return baseline{prep(baselineRunSQL), prep(baselineAttemptSQL), prep(baselineEventSQL), prep(baselineScheduleSQL)}
}

func (bl baseline) insert(b *testing.B, e *env, projectID string, tk taskRef, triggerID string) {
	tx, err := e.store.writer.BeginTx(b.Context(), nil)
	if err != nil {
		b.Fatal(err)
	}
	runID := ids.New()
	exec := func(st *sql.Stmt, args ...any) {
		if _, err := tx.Stmt(st).Exec(args...); err != nil {
			b.Fatal(err)
		}
	}
	exec(bl.run, runID, projectID, tk.id, tk.revision, triggerID, tk.executionID, "baseline:"+runID)
	exec(bl.attempt, ids.New(), runID)
	exec(bl.event, runID, 1)
	exec(bl.event, runID, 2)
	exec(bl.schedule, triggerID)
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

type taskRef struct {
	id          string
	revision    int64
	executionID string
	rev         task.Revision
}

func (e *env) projectTB(b *testing.B, name string) project.Project {
	p := project.Project{ID: ids.New(), Name: name, Status: project.Active}
	if _, err := e.store.ProjectSave(b.Context(), p); err != nil {
		b.Fatal(err)
	}
	return p
}

func (e *env) taskTB(b *testing.B, projectID string) taskRef {
	rev, _, err := e.service().PublishTask(b.Context(), projectID, ids.New(), 0, ids.New(), task.Spec{Name: "job", Enabled: true, Command: trueCommand()})
	if err != nil {
		b.Fatal(err)
	}
	return taskRef{id: rev.TaskID, revision: rev.Revision, executionID: task.ExecutionID(rev.Revision, rev.ContentDigest), rev: rev}
}

func (e *env) triggerTB(b *testing.B, projectID string, tk taskRef, name string) string {
	rev, _, err := e.service().PublishTrigger(b.Context(), projectID, ids.New(), tk.rev, 0, ids.New(), trigger.Spec{Name: name, Enabled: true, Cron: daily})
	if err != nil {
		b.Fatal(err)
	}
	return rev.TriggerID
}
