package retention

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"time"

	"github.com/qinglong/qinglong/internal/core/loop"
)

// Kind is what one batch deletes.
type Kind string

// The rules, applied in this order: whole Runs first (they take their
// logs with them), then old logs, then the oldest logs over the cap, then
// old delivered and dead notifications (independent of the others: an
// outbox row has no foreign key to its Run), then expired console
// sessions (no setting: a session past its expiry is never used again, so
// every pass deletes them, without waiting for a sign-in to).
const (
	KindRuns          Kind = "runs"
	KindLogs          Kind = "logs"
	KindLogBytes      Kind = "log_bytes"
	KindNotifications Kind = "notifications"
	KindSessions      Kind = "sessions"
)

// Kinds lists the rules in the order a pass applies them.
var Kinds = []Kind{KindRuns, KindLogs, KindLogBytes, KindNotifications, KindSessions}

// Batch asks a store for one small deletion.
type Batch struct {
	Kind Kind
	// OlderThan is the rule's age (KindRuns, KindLogs, KindNotifications),
	// measured on the store's clock against the Run's finish time (a lost
	// Run's: when it was found lost), or a notification's creation.
	// KindSessions has none: it deletes the sessions expired by the
	// store's clock.
	OlderThan time.Duration
	// MaxLogBytes is the cap (KindLogBytes).
	MaxLogBytes int64
	// Limit bounds the Runs (KindRuns), notifications (KindNotifications),
	// sessions (KindSessions) or logs (the others) one batch deletes.
	Limit int
}

// Result is what one batch did.
type Result struct {
	Deleted Deleted
	// More is true when the rule has more to delete.
	More bool
	// Kept lists the logs the batch could not remove. They stay named for
	// removal, so the next pass tries them again first (RetentionFinish)
	// and no file is ever left behind with nothing naming it.
	Kept []Kept
	// Idle is true when the store knows that other writers held the
	// database's writer for little of the time since its previous batch
	// (SQLite: under a quarter): the pass then paces its next batch at
	// CatchUpShare rather than Share. A store that cannot tell leaves it
	// false.
	Idle bool
	// Held is how long the batch held the database's writer, when the
	// store knows it: the pass paces and sizes its batches by it, since
	// what the store does after its commit (removing log files) takes
	// nothing from other writers. 0 counts the batch's whole time.
	Held time.Duration
}

// Kept is a log file retention could not remove.
type Kept struct {
	Run, Attempt, Path string
	// Err is why (the file system's answer).
	Err error
}

// Deleted counts what was (or, estimated, would be) deleted.
type Deleted struct {
	Runs, Attempts, Events, Logs, LogBytes, Notifications int64
	// Sessions are expired console sessions.
	Sessions int64
}

// Add sums two counts.
func (d *Deleted) Add(o Deleted) {
	d.Runs += o.Runs
	d.Attempts += o.Attempts
	d.Events += o.Events
	d.Logs += o.Logs
	d.LogBytes += o.LogBytes
	d.Notifications += o.Notifications
	d.Sessions += o.Sessions
}

// Store is what a store offers retention. Every method is safe to call
// while the store schedules and runs commands, and from several processes
// at once: a batch deletes only finished Runs (run.State.Terminal) and
// lost ones, whose attempts are all ended and unleased, delivered or dead
// notifications, never a pending one, and expired console sessions, never
// a live one; concurrent batches never delete the same row twice.
type Store interface {
	// RetentionBatch deletes one batch, in one short transaction, and
	// reports whether the rule has more to delete. A log file it cannot
	// remove is no error: it is kept, with its rows, and reported in the
	// Result; an error means the batch's transaction did not commit.
	RetentionBatch(ctx context.Context, b Batch) (Result, error)
	// RetentionEstimate counts what a pass under p would delete now,
	// deleting nothing. For the cap it counts the bytes over it after the
	// age rules (LogBytes) and the logs holding them (Logs).
	RetentionEstimate(ctx context.Context, p Policy) (map[Kind]Deleted, error)
	// RetentionCompact gives space the deletions freed back to the file
	// system, in short steps, and returns the bytes it gave back (0 where
	// the database reuses space itself).
	RetentionCompact(ctx context.Context) (int64, error)
	// RetentionFinish removes the log files earlier batches deleted the
	// rows of but did not remove (a process stopped between a batch's
	// commit and its removals, or a file the file system refused), and
	// returns those it still cannot remove, stopping after KeptPerRule of
	// them. A store that removes nothing after its commits has nothing to
	// finish.
	RetentionFinish(ctx context.Context) ([]Kept, error)
}

// Options bound one pass.
type Options struct {
	// BatchSize is the Limit of each rule's first batch (default 16), and
	// of every batch unless MaxBatchSize lets it grow.
	BatchSize int
	// MaxBatchSize, above BatchSize, lets every rule's batches grow while
	// they are quick: a batch that took less than half of BatchTarget
	// doubles the next one's Limit up to this, one that took more than
	// BatchTarget halves it back towards BatchSize. A batch has a cost of
	// its own (its statements, its commit) beside its rows', and the cap's
	// batches first read the total of every log, so at a fixed share of
	// the time small batches clear a backlog slowly; growing them by their
	// duration keeps what an admission may wait for (one batch) bounded in
	// time, and this bounds it in rows. 0 keeps every batch at BatchSize.
	MaxBatchSize int
	// BatchTarget is the longest a batch should take once batches grow
	// (default 25 ms; used only with MaxBatchSize).
	BatchTarget time.Duration
	// Budget ends a pass after this long; the rest is left to the next
	// pass (default 10 s; 0 in a Pass call means the default).
	Budget time.Duration
	// Pause is the least wait between two batches (default 5 ms).
	Pause time.Duration
	// Share is the most of the time a pass spends in batches (0–1,
	// default 0.1): after a batch it waits long enough for that, so it
	// holds the database's write capacity (on SQLite, its only writer)
	// that fraction of the time at most, and an admission waits for one
	// small batch at most.
	Share float64
	// CatchUpShare, above Share, is the share after a batch the store
	// found the writer idle for (Result.Idle): a backlog (a year of
	// history on the first pass) then goes at this share of a quiet
	// database's time, and falls back to Share as soon as admissions or
	// other writes keep the writer busy. Either way an admission waits
	// for one batch at most. 0 keeps Share throughout.
	CatchUpShare float64
	// OnBatch, when set, sees every batch and what the pass deleted so
	// far, over every rule (the CLI's progress).
	OnBatch func(k Kind, batch, soFar Deleted)
}

func (o Options) withDefaults() Options {
	if o.BatchSize <= 0 {
		o.BatchSize = 16
	}
	if o.Budget <= 0 {
		o.Budget = 10 * time.Second
	}
	if o.Pause <= 0 {
		o.Pause = 5 * time.Millisecond
	}
	if o.Share <= 0 || o.Share > 1 {
		o.Share = DefaultShare
	}
	o.CatchUpShare = min(max(o.CatchUpShare, o.Share), 1)
	if o.BatchTarget <= 0 {
		o.BatchTarget = DefaultBatchTarget
	}
	return o
}

// DefaultBatchTarget is the longest a growing batch should take.
const DefaultBatchTarget = 25 * time.Millisecond

// nextLimit is the Limit of a rule's next batch after one of limit rows
// that took took.
func (o Options) nextLimit(limit int, took time.Duration) int {
	switch {
	case o.MaxBatchSize <= o.BatchSize:
		return o.BatchSize
	case took < o.BatchTarget/2:
		return min(limit*2, o.MaxBatchSize)
	case took > o.BatchTarget:
		return max(limit/2, o.BatchSize)
	}
	return limit
}

// pause is the wait after a batch that took took: long enough for the
// pass to hold the writer its share of the time, CatchUpShare when no
// other writer wanted it, and at least Pause.
func (o Options) pause(took time.Duration, idle bool) time.Duration {
	share := o.Share
	if idle {
		share = o.CatchUpShare
	}
	return max(o.Pause, time.Duration(float64(took)*(1-share)/share))
}

// DefaultShare is the share of time a serving process's passes spend
// deleting.
const DefaultShare = 0.1

// KeptPerRule is how many logs a rule may fail to remove in one pass
// before the pass moves on to the next rule. Files that cannot be removed
// seldom fail alone (a read-only directory fails them all): without a
// bound, a pass would try every file of the backlog, each one more to pass
// over in every batch after it, and list them all.
const KeptPerRule = 64

// Report is one pass.
type Report struct {
	ByKind     map[Kind]Deleted
	Total      Deleted
	Batches    int
	FreedBytes int64
	// More is true when a rule's share of the budget ended its batches
	// before it was done.
	More bool
	// Kept lists the logs the pass could not remove, each once; they
	// stay named for removal for the next pass to try again.
	Kept []Kept
	// Cut lists the rules the pass left after KeptPerRule logs they
	// could not remove, or did not start because KeptPerRule logs an
	// earlier pass left could still not be removed; the rest of their
	// work waits for a later pass.
	Cut     []Kind
	Elapsed time.Duration
}

// Pass applies p once: each rule in batches until it is done or its share
// of the budget is spent, then compacts. A rule that is off is skipped;
// the sessions rule has no setting and is never off. Each rule runs at
// least one batch, and until the budget left when it started, shared
// evenly with the rules after it: a backlog of one rule (a year of Runs
// the first pass on a moved installation deletes, for hours) cannot keep
// the log cap, or any rule after it, from its work pass after pass. A
// rule done early leaves its share to the rules after it.
func Pass(ctx context.Context, st Store, p Policy, o Options) (Report, error) {
	o = o.withDefaults()
	start := time.Now()
	rep := Report{ByKind: map[Kind]Deleted{}}
	rules := []Batch{
		{Kind: KindRuns, OlderThan: p.RunsAge},
		{Kind: KindLogs, OlderThan: p.LogsAge},
		{Kind: KindLogBytes, MaxLogBytes: p.LogBytes},
		{Kind: KindNotifications, OlderThan: p.NotificationsAge},
		{Kind: KindSessions},
	}
	rules = slices.DeleteFunc(rules, func(b Batch) bool {
		return b.Kind != KindSessions && b.OlderThan == 0 && b.MaxLogBytes == 0
	})
	// What an earlier pass left goes first. A directory nothing can be
	// removed from leaves the rules that remove logs to a later pass: each
	// of their batches would name more files for removal that cannot go.
	left, err := st.RetentionFinish(ctx)
	if err != nil {
		rep.Elapsed = time.Since(start)
		return rep, err
	}
	rep.Kept = append(rep.Kept, left...)
	if len(left) >= KeptPerRule {
		rules = slices.DeleteFunc(rules, func(b Batch) bool {
			if b.Kind == KindNotifications || b.Kind == KindSessions {
				return false
			}
			rep.Cut = append(rep.Cut, b.Kind)
			return true
		})
	}
	for i, b := range rules {
		ruleStart := time.Now()
		share := (o.Budget - ruleStart.Sub(start)) / time.Duration(len(rules)-i)
		b.Limit = o.BatchSize
		kept := 0
		for first := true; ; first = false {
			if !first && time.Since(ruleStart) > share {
				rep.More = true
				break
			}
			began := time.Now()
			res, err := st.RetentionBatch(ctx, b)
			took := time.Since(began)
			if res.Held > 0 {
				took = res.Held
			}
			if err != nil {
				rep.Elapsed = time.Since(start)
				return rep, err
			}
			rep.Batches++
			k := rep.ByKind[b.Kind]
			k.Add(res.Deleted)
			rep.ByKind[b.Kind] = k
			rep.Total.Add(res.Deleted)
			rep.Kept = append(rep.Kept, res.Kept...)
			kept += len(res.Kept)
			if o.OnBatch != nil {
				o.OnBatch(b.Kind, res.Deleted, rep.Total)
			}
			if !res.More {
				break
			}
			if kept >= KeptPerRule {
				rep.Cut = append(rep.Cut, b.Kind)
				break
			}
			b.Limit = o.nextLimit(b.Limit, took)
			if err := loop.Sleep(ctx, o.pause(took, res.Idle)); err != nil {
				rep.Elapsed = time.Since(start)
				return rep, err
			}
		}
	}
	if rep.Total != (Deleted{}) {
		freed, err := st.RetentionCompact(ctx)
		rep.FreedBytes = freed
		if err != nil {
			rep.Elapsed = time.Since(start)
			return rep, err
		}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// Diagnostic codes of the retention loop.
const (
	CodePass       = "retention.pass"
	CodePassFailed = "retention.pass_failed" //nolint:gosec // G101: a diagnostic code, not a credential
	CodeNotRemoved = "retention.logs_not_removed"
)

// KeptAdvice says what to do about logs a pass could not remove.
const KeptAdvice = "make each file removable by the server's user (an immutable file: chattr -i; " +
	"its directory: write permission; a directory in a log's place: move it away), or delete the file yourself; " +
	"it stays named for removal, and each pass tries it again first"

// keptListed bounds the files one log record names.
const keptListed = 10

// String names the file, its attempt and Run, and the cause.
func (k Kept) String() string {
	cause := k.Err
	var pe *fs.PathError
	if errors.As(cause, &pe) {
		cause = pe.Err
	}
	return fmt.Sprintf("%s (attempt %s of Run %s): %v", k.Path, k.Attempt, k.Run, cause)
}

// DefaultCadence is how often a serving process runs a pass.
const DefaultCadence = time.Minute

// LoopConfig configures the serving process's retention loop.
type LoopConfig struct {
	Store       Store
	Policy      Policy
	Cadence     time.Duration
	StopTimeout time.Duration
	Options     Options
	Logger      *slog.Logger
	// OnPass, when set, sees every pass: what it deleted, and the error
	// that ended it (nil for a pass that completed).
	OnPass func(Report, error)
}

// NewLoop is the loop a serving process starts: one pass per cadence (the
// next at once while a pass ran out of budget), one log record per pass
// that deleted something or failed, and one warning per pass that could
// not remove some logs (naming the first few, their count and what to do;
// the pass went on without them, and the next tries them again). A pass
// that failed or was stopped after some of its batches committed still
// logs what they deleted (with the error that ended it): those rows are
// gone, and the log is the operator's only account of them. Callers start
// it when the policy is Off too: its passes then delete expired console
// sessions only.
func NewLoop(c LoopConfig) (*loop.Loop, error) {
	if c.Cadence == 0 {
		c.Cadence = DefaultCadence
	}
	return loop.New(loop.Config{
		Name:        "retention",
		Cadence:     c.Cadence,
		StopTimeout: c.StopTimeout,
		OnError: func(err error) {
			c.Logger.Warn("retention pass failed", "code", CodePassFailed, "error", err.Error())
		},
	}, func(ctx context.Context) (bool, error) {
		rep, err := Pass(ctx, c.Store, c.Policy, c.Options)
		if c.OnPass != nil {
			c.OnPass(rep, err)
		}
		if rep.Total != (Deleted{}) {
			attrs := []any{"code", CodePass, "runs", rep.Total.Runs, "attempts", rep.Total.Attempts, "events", rep.Total.Events,
				"logs", rep.Total.Logs, "log_bytes", rep.Total.LogBytes, "notifications", rep.Total.Notifications, "sessions", rep.Total.Sessions, "freed_bytes", rep.FreedBytes,
				"batches", rep.Batches, "more", rep.More || err != nil, "not_removed", len(rep.Kept), "elapsed_ms", rep.Elapsed.Milliseconds()}
			if err != nil {
				attrs = append(attrs, "ended_by", err.Error())
			}
			c.Logger.Info("retention pass", attrs...)
		}
		if len(rep.Kept) > 0 {
			var files []string
			for _, k := range rep.Kept[:min(len(rep.Kept), keptListed)] {
				files = append(files, k.String())
			}
			c.Logger.Warn("retention could not remove some log files and kept their Runs", "code", CodeNotRemoved,
				"not_removed", len(rep.Kept), "files", files, "problem", rep.Kept[0].Problem(), "rules_cut_short", rep.Cut, "action", KeptAdvice)
		}
		if err != nil {
			return false, err
		}
		return rep.More, nil
	})
}

// Estimate assembles a dry run's counts from what the runs rule and then
// the logs rule would delete, the bytes of every log now (the cap counts
// the bytes still over it after both), the notifications the
// notifications rule would delete and the expired console sessions.
func Estimate(p Policy, runs, logs Deleted, totalLogBytes, notifications, sessions int64) map[Kind]Deleted {
	out := map[Kind]Deleted{}
	if p.RunsAge != 0 {
		out[KindRuns] = runs
	}
	if p.LogsAge != 0 {
		out[KindLogs] = logs
	}
	if p.LogBytes != 0 {
		over := totalLogBytes - out[KindRuns].LogBytes - out[KindLogs].LogBytes - p.LogBytes
		out[KindLogBytes] = Deleted{LogBytes: max(over, 0)}
	}
	if p.NotificationsAge != 0 {
		out[KindNotifications] = Deleted{Notifications: notifications}
	}
	out[KindSessions] = Deleted{Sessions: sessions}
	return out
}
