package scheduler

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/availability"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/cleanstop"
)

// t0 is a minute boundary: a "* * * * *" trigger with cursor t0 is due at t0.
const (
	t0     int64 = 1_767_225_600_000 // 2026-01-01T00:00:00Z
	minute int64 = 60_000
)

// fakeStore is a backlog of due rows for the scheduler's own logic (page
// budget, identities, loop behaviour). The storage guarantees themselves are
// tested against PostgreSQL in internal/cluster/pgstore and in this package's
// integration tests.
type fakeStore struct {
	mu        sync.Mutex
	backlog   int // rows still due
	observed  int64
	takes     []int // Limit of every take
	commits   []schedule.CommitParams
	takeErr   func(call int) error
	commitErr error
	// commitGate, when set, blocks every commit until it receives (or is
	// closed), ignoring ctx: a commit stuck in the database.
	commitGate chan struct{}
	// onCommit, when set, is called as every commit begins, before the
	// gate.
	onCommit func()
	// onTake, when set, is called after every take with its call number.
	onTake func(call int, remaining int)
	// released are the trigger ids of the tickets given back.
	released []string
	// releaseErr, when set, fails every release, which then gives back
	// nothing.
	releaseErr error
}

func (s *fakeStore) ScheduleTake(_ context.Context, p schedule.TakeParams) ([]schedule.Ticket, error) {
	s.mu.Lock()
	s.takes = append(s.takes, p.Limit)
	call := len(s.takes)
	var err error
	if s.takeErr != nil {
		err = s.takeErr(call)
	}
	var out []schedule.Ticket
	if err == nil {
		n := min(p.Limit, s.backlog)
		s.backlog -= n
		for i := 0; i < n; i++ {
			out = append(out, dueTicket(fmt.Sprintf("trigger-%d-%d", call, i), t0, s.observed))
		}
	}
	remaining, onTake := s.backlog, s.onTake
	s.mu.Unlock()
	if onTake != nil {
		onTake(call, remaining)
	}
	return out, err
}

func (s *fakeStore) ScheduleCommit(_ context.Context, p schedule.CommitParams) (schedule.CommitResult, error) {
	if s.onCommit != nil {
		s.onCommit()
	}
	if s.commitGate != nil {
		<-s.commitGate
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commits = append(s.commits, p)
	if s.commitErr != nil {
		return schedule.ReasonOutcomeUnknown.Result(), s.commitErr
	}
	switch p.Decision.Action {
	case schedule.Admit:
		return schedule.CommitResult{Outcome: schedule.Admitted, RunID: p.RunID}, nil
	case schedule.SkipLate:
		return schedule.CommitResult{Outcome: schedule.Skipped}, nil
	}
	return schedule.CommitResult{Outcome: schedule.Initialized}, nil
}

func (s *fakeStore) ScheduleCommitPage(ctx context.Context, ps []schedule.CommitParams) ([]schedule.CommitResult, error) {
	return commitEach(ctx, s.ScheduleCommit, ps), nil
}

// commitEach commits a page one decision at a time through commit.
func commitEach(ctx context.Context, commit func(context.Context, schedule.CommitParams) (schedule.CommitResult, error), ps []schedule.CommitParams) []schedule.CommitResult {
	out := make([]schedule.CommitResult, len(ps))
	for i, p := range ps {
		out[i], out[i].Err = commit(ctx, p)
	}
	return out
}

// ScheduleRelease records the tickets given back; the fake holds no
// claims, so every one of them counts as released.
func (s *fakeStore) ScheduleRelease(_ context.Context, tickets []schedule.Ticket) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.releaseErr != nil {
		return 0, s.releaseErr
	}
	for _, tk := range tickets {
		s.released = append(s.released, tk.TriggerID)
	}
	return len(tickets), nil
}

func (s *fakeStore) releasedIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.released)
}

func (s *fakeStore) Executor() task.Executor { return task.RemoteWorker }

func (s *fakeStore) takeCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.takes)
}

func dueTicket(id string, cursor, observed int64) schedule.Ticket {
	return schedule.Ticket{
		Snapshot: schedule.Snapshot{
			TriggerID:          id,
			TriggerCreatedAtMs: t0 - 10*minute,
			Cron:               trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
			NextFireAtMs:       &cursor,
		},
		Lease:        &schedule.Lease{Owner: "replica-a", Token: "tok", ClaimVersion: 1, AcquiredAtMs: observed, ExpiresAtMs: observed + 30_000},
		ObservedAtMs: observed,
	}
}

// logBuffer is a concurrency-safe JSON log sink for assertions.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// records returns the decoded log lines carrying code.
func (b *logBuffer) records(t *testing.T, code string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range bytes.Split([]byte(b.String()), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		if rec["code"] == code {
			out = append(out, rec)
		}
	}
	return out
}

type bundle struct {
	store *fakeStore
	logs  *logBuffer
	latch *availability.Latch
	coord *Coordinator
}

func setup(t *testing.T, cfg Config, st *fakeStore) bundle {
	t.Helper()
	logs := &logBuffer{}
	latch := availability.New()
	if cfg.Owner == "" {
		cfg.Owner = "replica-a"
	}
	c, err := New(cfg, st, slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), latch)
	if err != nil {
		t.Fatal(err)
	}
	cleanstop.AtCleanup(t, "the coordinator", 10*time.Second, c.Stop)
	return bundle{store: st, logs: logs, latch: latch, coord: c}
}
