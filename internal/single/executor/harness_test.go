package executor

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// harness is a real SQLite store with one project, a clock the test moves,
// and a data directory for logs, secrets and owners.
type harness struct {
	store   *sqlitestore.Store
	raw     *sql.DB
	nowMs   atomic.Int64
	dir     string
	project project.Project
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	h := &harness{dir: t.TempDir()}
	h.nowMs.Store(time.Date(2030, 1, 2, 3, 4, 30, 0, time.UTC).UnixMilli())
	path := filepath.Join(h.dir, "ql.db")
	st := sqlitetest.OpenAt(t, path, h.clock)
	h.store = st
	var err error
	h.raw, err = sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.raw.Close() })
	h.project = project.Project{ID: ids.New(), Name: "demo", Status: project.Active}
	if _, err := st.ProjectSave(t.Context(), h.project); err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *harness) clock() int64 { return h.nowMs.Add(1) }

// admit publishes a task running c with a trigger, makes it due and admits
// one run.
func (h *harness) admit(t testing.TB, c task.Command) string {
	t.Helper()
	svc := catalog.Service{Store: h.store, Executor: task.LocalProcess, NowMs: h.clock}
	tk, _, err := svc.PublishTask(t.Context(), h.project.ID, ids.New(), 0, ids.New(), task.Spec{Name: "job-" + ids.New()[24:], Enabled: true, Command: c})
	if err != nil {
		t.Fatal(err)
	}
	tg, _, err := svc.PublishTrigger(t.Context(), h.project.ID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: "tick-" + ids.New()[24:], Enabled: true,
		Cron: trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.raw.Exec(`UPDATE trigger_schedules SET next_fire_at_ms = ?, state_version = state_version + 1 WHERE trigger_id = ?`, h.clock()-1000, tg.TriggerID); err != nil {
		t.Fatal(err)
	}
	sum, err := schedule.Round(t.Context(), h.store, schedule.RoundConfig{PageSize: schedule.MaxPageSize, GraceMs: 60_000, Parallel: 1, NewIDs: ids.Fill})
	if err != nil || len(sum.Admitted) != 1 {
		t.Fatalf("admission round: %+v, %v", sum, err)
	}
	return sum.Admitted[0]
}

// signalling wraps the store and reports every recorded result, so tests
// wait on results instead of sleeping.
type signalling struct {
	Store
	finished chan run.Attempt

	mu       sync.Mutex
	inFlight int
	maxSeen  int
}

func (s *signalling) AttemptStart(ctx context.Context, attemptID, owner, logPath string) (task.Execution, run.Identity, error, error) {
	plan, id, planErr, err := s.Store.AttemptStart(ctx, attemptID, owner, logPath)
	if err == nil {
		s.mu.Lock()
		s.inFlight++
		s.maxSeen = max(s.maxSeen, s.inFlight)
		s.mu.Unlock()
	}
	return plan, id, planErr, err
}

// AttemptFinish signals only a recorded result; a failed call is retried
// by the dispatcher.
func (s *signalling) AttemptFinish(ctx context.Context, a run.Attempt) (run.State, error) {
	finished, err := s.Store.AttemptFinish(ctx, a)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.inFlight--
	s.mu.Unlock()
	s.finished <- a
	return finished, nil
}

type dispatcherOpts struct {
	concurrency int
	logCap      int64
	stopTimeout time.Duration
	runAs       task.RunAs
	// onError receives the dispatcher's errors; nil fails the test on any.
	onError func(error)
	// logsGrown and logsGrownEvery are Config's LogsGrown and
	// LogsGrownEvery.
	logsGrown      func()
	logsGrownEvery int64
	// admit is Config's Admit.
	admit func() (func(), error)
}

// dispatcher starts a dispatcher on the harness; errors fail the test.
func (h *harness) dispatcher(t testing.TB, o dispatcherOpts) (*Dispatcher, *signalling) {
	t.Helper()
	return h.dispatcherOn(t, h.store, o)
}

// dispatcherOn starts a dispatcher on st (the harness store, possibly
// wrapped to inject faults).
func (h *harness) dispatcherOn(t testing.TB, st Store, o dispatcherOpts) (*Dispatcher, *signalling) {
	t.Helper()
	owner, err := AcquireOwner(filepath.Join(h.dir, "owners"))
	if err != nil {
		t.Fatal(err)
	}
	sig := &signalling{Store: st, finished: make(chan run.Attempt, 64)}
	if o.onError == nil {
		o.onError = func(err error) { t.Errorf("executor error: %v", err) }
	}
	cfg := Config{
		Concurrency:    max(o.concurrency, 1),
		LogDir:         filepath.Join(h.dir, "logs"),
		LogCapBytes:    cmp.Or(o.logCap, 1<<20),
		Secrets:        process.Secrets{Path: filepath.Join(h.dir, "secrets.json")},
		Owner:          owner,
		BaseEnv:        []string{"PATH=/usr/bin:/bin"},
		RunAs:          o.runAs,
		PollInterval:   time.Hour,
		StopTimeout:    max(o.stopTimeout, 5*time.Second),
		OnError:        o.onError,
		NowMs:          h.clock,
		LogsGrown:      o.logsGrown,
		LogsGrownEvery: o.logsGrownEvery,
		Admit:          o.admit,
	}
	d, err := New(sig, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Stop(context.Background()); err != nil {
			t.Errorf("stop: %v", err)
		}
		// A test that stands for a server gone may have released it.
		if err := owner.Release(); err != nil && !errors.Is(err, os.ErrClosed) {
			t.Errorf("release owner: %v", err)
		}
	})
	return d, sig
}

func (s *signalling) wait(t testing.TB, n int) []run.Attempt {
	t.Helper()
	var out []run.Attempt
	timeout := time.After(30 * time.Second)
	for len(out) < n {
		select {
		case a := <-s.finished:
			out = append(out, a)
		case <-timeout:
			t.Fatalf("%d of %d attempts finished in time", len(out), n)
		}
	}
	return out
}

// runAlone admits c and runs it on a dispatcher of its own until its
// result is recorded: it returns that result and its Run as recorded.
func (h *harness) runAlone(t *testing.T, c task.Command) (run.Attempt, run.Detail) {
	t.Helper()
	runID := h.admit(t, c)
	d, sig := h.dispatcher(t, dispatcherOpts{})
	d.Wake()
	res := sig.wait(t, 1)[0]
	return res, h.detail(t, runID)
}

func (h *harness) detail(t testing.TB, runID string) run.Detail {
	t.Helper()
	d, err := h.store.RunGet(t.Context(), runID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func names(d run.Detail) []string {
	var out []string
	for _, e := range d.Events {
		out = append(out, e.Name)
	}
	return out
}

func shell(script string, timeout time.Duration) task.Command {
	return task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: script, TimeoutMs: timeout.Milliseconds()}
}

const secretValue = "v3ry-s3cret-value"

// writeSecrets writes the secrets file of the harness's dispatchers.
func writeSecrets(t testing.TB, dir string, mode os.FileMode) {
	t.Helper()
	path := filepath.Join(dir, "secrets.json")
	if err := os.WriteFile(path, []byte(`{"api-token": "`+secretValue+`"}`), mode); err != nil {
		t.Fatal(err)
	}
}
