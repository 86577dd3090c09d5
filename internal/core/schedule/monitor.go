package schedule

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/run"
)

// MonitorLimit bounds every count a Monitor reads: a count at the limit
// means "at least this many". Monitoring reads the store every few seconds
// on every server, so its cost must not grow with the tables.
const MonitorLimit = 10_000

// UnfinishedStates are the Run states a Monitor counts: a finished Run
// never changes again, so counting those would only grow with history.
var UnfinishedStates = []run.State{run.Created, run.Queued, run.Dispatching, run.Running, run.WaitingApproval, run.RetryWait}

// MonitorSnapshot is what monitoring reads from a store at one instant of
// its time authority (the database clock in the cluster, the injected
// clock on SQLite).
type MonitorSnapshot struct {
	NowMs int64
	// Due counts the schedule rows of enabled, unpaused triggers that are
	// due at NowMs and that no take holds (in the cluster: unclaimed; a row
	// under a claim, even an expired one, is not counted); at most the
	// limit. Uninitialised rows have no due time and are not counted.
	Due int
	// OldestDueAtMs is the earliest due time among them; nil when none is
	// due.
	OldestDueAtMs *int64
	// Runs counts the Runs in each of UnfinishedStates, each at most the
	// limit; a state without Runs may be missing.
	Runs map[run.State]int
	// OldestQueuedAtMs is the earliest time a queued Run was queued (a
	// retried Run: queued again when its backoff ended), a backfill's Runs
	// left out; nil when no other Run is queued. A backfill's Runs are
	// dispatched after every other, so a large one draining would
	// otherwise read as Runs kept waiting.
	OldestQueuedAtMs *int64
	// OldestBackfillQueuedAtMs is the same of the Runs a backfill
	// admitted; nil when none is queued.
	OldestBackfillQueuedAtMs *int64
}

// Backlog is the due schedule rows no take holds, as MonitorSnapshot
// counts them, of some projects.
type Backlog struct {
	// Due counts them, at most the limit.
	Due int
	// OldestDueAtMs is the earliest due time among them; nil when none is
	// due.
	OldestDueAtMs *int64
}

// BacklogReader reads the backlog of the projects named in (every
// project when in is empty), counted up to limit (1–MonitorLimit): the
// console's overview, whose bound user sees its projects' backlog only.
type BacklogReader interface {
	Backlog(ctx context.Context, limit int, in []string) (Backlog, error)
}

// Monitor reads a MonitorSnapshot with index reads bounded by limit
// (1–MonitorLimit), whatever the tables hold.
type Monitor interface {
	Monitor(ctx context.Context, limit int) (MonitorSnapshot, error)
}
