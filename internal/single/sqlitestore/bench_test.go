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

// benchGraceMs keeps every made-due occurrence within its misfire grace.
var benchGraceMs = (5 * time.Minute).Milliseconds()

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
	baselineAttemptSQL = `INSERT INTO attempts (id, run_id, number, executor, state, created_at_ms, project_id)
		VALUES (?1, ?2, 1, 'local_process', 'claimed', 0, (SELECT r.project_id FROM runs r WHERE r.id = ?2))`
	baselineEventSQL    = `INSERT INTO run_events (run_id, seq, name, payload, created_at_ms) VALUES (?, ?, 'run.created', '{}', 0)`
	baselineScheduleSQL = `UPDATE trigger_schedules SET state_version = state_version + 1 WHERE trigger_id = ?`
	allDueSQL           = `UPDATE trigger_schedules SET next_fire_at_ms = ?, state_version = state_version + 1`
)

// commitPath commits one taken page's decisions.
type commitPath struct {
	name     string
	pageSize int
	commit   func(b *testing.B, e *env, ps []schedule.CommitParams) []schedule.CommitResult
}

// eachDecision commits every decision in its own BEGIN IMMEDIATE
// transaction, as ScheduleCommit does.
func eachDecision(b *testing.B, e *env, ps []schedule.CommitParams) []schedule.CommitResult {
	out := make([]schedule.CommitResult, len(ps))
	for i, p := range ps {
		var err error
		if out[i], err = e.store.ScheduleCommit(b.Context(), p); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

// wholePage commits the page in one BEGIN IMMEDIATE transaction.
func wholePage(b *testing.B, e *env, ps []schedule.CommitParams) []schedule.CommitResult {
	out, err := e.store.ScheduleCommitPage(b.Context(), ps)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkStandaloneAdmissions measures admissions per second with 10,000
// due triggers on one writer, taking pages in claim order and deciding each
// ticket as the round does, then committing each page two ways on the same
// file in the same run, at the same (routine) durability: every decision
// in its own BEGIN IMMEDIATE transaction (ScheduleCommit, page 16 as the
// round's default), and each page in one (ScheduleCommitPage, pages of 16
// and 256). A plain prepared insert transaction of the admission's write
// shape is the floor of the per-decision path. The process's CPU time per
// admission is reported beside the wall-clock rate: on a shared machine it
// is the steadier of the two. Target: ≥ 10,000 admissions/s for the page
// path.
func BenchmarkStandaloneAdmissions(b *testing.B) {
	e := newEnv(b)
	p := e.projectTB(b, "bench")
	tk := e.taskTB(b, p.ID)
	triggers := make([]string, benchTriggers)
	for i := range triggers {
		triggers[i] = e.triggerTB(b, p.ID, tk, fmt.Sprintf("t%05d", i))
	}
	paths := []commitPath{
		{"each16", 16, eachDecision},
		{"page16", 16, wholePage},
		{"page256", schedule.MaxPageSize, wholePage},
	}
	drain(b, e, paths[2], 0) // initialise every cursor
	bl := prepareBaseline(b, e)
	elapsed := make([]time.Duration, len(paths))
	cpu := make([]time.Duration, len(paths))
	admitted := make([]int, len(paths))
	var baseTime time.Duration
	inserted := 0
	for b.Loop() {
		for i, path := range paths {
			b.StopTimer()
			if _, err := e.raw.Exec(allDueSQL, e.clock.NowMs()-1_000); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			start, startCPU := time.Now(), processCPU(b)
			admitted[i] += drain(b, e, path, benchTriggers)
			elapsed[i] += time.Since(start)
			cpu[i] += processCPU(b) - startCPU
		}
		start := time.Now()
		for _, tg := range triggers {
			bl.insert(b, e, p.ID, tk, tg)
		}
		inserted += len(triggers)
		baseTime += time.Since(start)
	}
	perSec := make([]float64, len(paths))
	for i, path := range paths {
		perSec[i] = float64(admitted[i]) / elapsed[i].Seconds()
		b.ReportMetric(perSec[i], path.name+"-admissions/s")
		b.ReportMetric(float64(cpu[i].Microseconds())/float64(admitted[i]), path.name+"-cpu-µs/admission")
	}
	b.ReportMetric(float64(inserted)/baseTime.Seconds(), "baseline-tx/s")
	b.ReportMetric(perSec[1]/perSec[0], "page16/each16")
	b.ReportMetric(perSec[2]/perSec[0], "page256/each16")
}

// drain takes, decides and commits pages until a take returns nothing and
// returns the admissions; it fails unless exactly want were admitted and
// every other commit initialised a cursor.
func drain(b *testing.B, e *env, path commitPath, want int) int {
	admitted := 0
	for {
		tks, err := e.store.ScheduleTake(b.Context(), schedule.TakeParams{Limit: path.pageSize})
		if err != nil {
			b.Fatal(err)
		}
		if len(tks) == 0 {
			break
		}
		ps := make([]schedule.CommitParams, len(tks))
		for i, tk := range tks {
			d, err := schedule.DecideTicket(tk, benchGraceMs)
			if err != nil {
				b.Fatal(err)
			}
			ps[i] = schedule.CommitParams{Ticket: tk, Decision: d, GraceMs: benchGraceMs}
			if d.Action == schedule.Admit {
				ps[i].RunID, ps[i].AttemptID = ids.New(), ids.New()
			}
		}
		for i, res := range path.commit(b, e, ps) {
			switch res.Outcome {
			case schedule.Admitted:
				admitted++
			case schedule.Initialized:
			default:
				b.Fatalf("%s: trigger %s: %s (%s)", path.name, ps[i].Ticket.TriggerID, res.Outcome, res.Reason)
			}
		}
	}
	if admitted != want {
		b.Fatalf("%s: admitted %d, want %d", path.name, admitted, want)
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

func (e *env) projectTB(b testing.TB, name string) project.Project {
	p := project.Project{ID: ids.New(), Name: name, Status: project.Active}
	if _, err := e.store.ProjectSave(b.Context(), p); err != nil {
		b.Fatal(err)
	}
	return p
}

func (e *env) taskTB(b testing.TB, projectID string) taskRef {
	rev, _, err := e.service().PublishTask(b.Context(), projectID, ids.New(), 0, ids.New(), task.Spec{Name: "job", Enabled: true, Command: trueCommand()})
	if err != nil {
		b.Fatal(err)
	}
	return taskRef{id: rev.TaskID, revision: rev.Revision, executionID: task.ExecutionID(rev.Revision, rev.ContentDigest), rev: rev}
}

func (e *env) triggerTB(b testing.TB, projectID string, tk taskRef, name string) string {
	rev, _, err := e.service().PublishTrigger(b.Context(), projectID, ids.New(), tk.rev, 0, ids.New(), trigger.Spec{Name: name, Enabled: true, Cron: daily})
	if err != nil {
		b.Fatal(err)
	}
	return rev.TriggerID
}

// BenchmarkTakePastRowsWaitingARecheck measures a take of a standalone
// page (256) when the rows due first are 0, 100, 1,000 or 10,000 rows this host
// could not read, each waiting out its recheck (ScheduleRecheckLater): the
// take passes over them on the due index, one lookup each, before it
// reaches the page it returns.
func BenchmarkTakePastRowsWaitingARecheck(b *testing.B) {
	for _, waiting := range []int{0, 100, 1_000, benchTriggers} {
		b.Run(fmt.Sprintf("waiting=%d", waiting), func(b *testing.B) {
			e := newEnv(b)
			p := e.projectTB(b, "bench")
			tk := e.taskTB(b, p.ID)
			for i := range waiting + schedule.MaxPageSize {
				e.triggerTB(b, p.ID, tk, fmt.Sprintf("t%05d", i))
			}
			drain(b, e, commitPath{"page256", schedule.MaxPageSize, wholePage}, 0)
			now := e.clock.NowMs()
			if _, err := e.raw.Exec(`UPDATE trigger_schedules SET next_fire_at_ms = ? - rowid, state_version = state_version + 1`, now); err != nil {
				b.Fatal(err)
			}
			if _, err := e.raw.Exec(`UPDATE trigger_schedules SET recheck_at_ms = ?, recheck_state_version = state_version
				WHERE trigger_id IN (SELECT trigger_id FROM trigger_schedules ORDER BY next_fire_at_ms LIMIT ?)`, now+time.Hour.Milliseconds(), waiting); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				tks, err := e.store.ScheduleTake(b.Context(), schedule.TakeParams{Limit: schedule.MaxPageSize})
				if err != nil || len(tks) != schedule.MaxPageSize {
					b.Fatalf("took %d rows (%v), want %d", len(tks), err, schedule.MaxPageSize)
				}
			}
		})
	}
}
