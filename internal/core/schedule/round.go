package schedule

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Page-size limits shared by every profile.
const (
	DefaultPageSize = 16
	MaxPageSize     = 256
	MaxParallel     = 16
)

// RoundConfig configures one round. It has no clock: every decision uses
// its ticket's ObservedAtMs.
type RoundConfig struct {
	// PageSize is how many rows one round takes (1–256).
	PageSize int
	// GraceMs is the misfire grace period.
	GraceMs int64
	// Parallel is how many commits run at once within a round (1–16).
	Parallel int
	// NewID allocates Run and Attempt identities; called only for admits.
	NewID func() string
}

// Validate names the field and its allowed range.
func (c RoundConfig) Validate() error {
	if c.PageSize < 1 || c.PageSize > MaxPageSize {
		return qlerror.New(qlerror.Invalid, "page size %d is outside 1–%d", c.PageSize, MaxPageSize)
	}
	if c.Parallel < 1 || c.Parallel > MaxParallel {
		return qlerror.New(qlerror.Invalid, "commit parallelism %d is outside 1–%d", c.Parallel, MaxParallel)
	}
	if c.GraceMs < 0 {
		return qlerror.New(qlerror.Invalid, "misfire grace %dms must not be negative", c.GraceMs)
	}
	if c.NewID == nil {
		return qlerror.New(qlerror.Internal, "round config without an id allocator")
	}
	return nil
}

// Summary reports one round.
type Summary struct {
	Taken  int
	Counts map[Outcome]int
	// FirstAcquiredMs/LastAcquiredMs are the earliest and latest
	// observation times of the round's tickets; nil when nothing was taken.
	FirstAcquiredMs *int64
	LastAcquiredMs  *int64
	Duration        time.Duration
	// Admitted lists the Run ids admitted, for waking a dispatcher.
	Admitted []string
	// Errors are per-ticket failures (decision or commit), for diagnostics.
	Errors []error
	// Next is when a row known to this round falls due, for the loop to
	// wake at (horizon.go); nil when the store does not report it, or the
	// page was full.
	Next *NextDue
}

// Full reports whether the round took a whole page: more work is likely
// due.
func (s Summary) Full(pageSize int) bool { return s.Taken >= pageSize }

// Progress counts the tickets whose decision this round committed:
// admitted, initialized or skipped. Raced, failed and unavailable tickets
// moved nothing.
func (s Summary) Progress() int {
	return s.Counts[Admitted] + s.Counts[Initialized] + s.Counts[Skipped]
}

// StartNextAtOnce reports whether the next round should start without
// waiting for the cadence: the round took a full page, so more is likely
// due, and it made progress. A full page on which nothing could be
// committed — rows that keep failing closed, or a database that refuses
// every commit — waits for the cadence, or the scheduler would spin on the
// same rows as fast as the store answers.
func (s Summary) StartNextAtOnce(pageSize int) bool {
	return s.Full(pageSize) && s.Progress() > 0
}

// Round takes one page, decides each ticket from its own observation time
// and commits each decision, at most cfg.Parallel at a time.
func Round(ctx context.Context, st Store, cfg RoundConfig) (Summary, error) {
	start := time.Now()
	sum := Summary{Counts: make(map[Outcome]int, len(Outcomes))}
	if err := cfg.Validate(); err != nil {
		return sum, err
	}
	tickets, next, err := takeWithHorizon(ctx, st, TakeParams{Limit: cfg.PageSize})
	if err != nil {
		sum.Duration = time.Since(start)
		return sum, err
	}
	sum.Taken = len(tickets)
	for i := range tickets {
		at := tickets[i].ObservedAtMs
		if sum.FirstAcquiredMs == nil || at < *sum.FirstAcquiredMs {
			sum.FirstAcquiredMs = &at
		}
		if sum.LastAcquiredMs == nil || at > *sum.LastAcquiredMs {
			sum.LastAcquiredMs = &at
		}
	}
	var mu sync.Mutex
	sem := make(chan struct{}, cfg.Parallel)
	var wg sync.WaitGroup
	for _, tk := range tickets {
		sem <- struct{}{}
		wg.Add(1)
		go func(tk Ticket) {
			defer wg.Done()
			defer func() { <-sem }()
			res, err := decideAndCommit(ctx, st, cfg, tk)
			mu.Lock()
			defer mu.Unlock()
			sum.Counts[res.Outcome]++
			if res.Outcome == Admitted {
				sum.Admitted = append(sum.Admitted, res.RunID)
			}
			if err != nil {
				sum.Errors = append(sum.Errors, err)
			}
		}(tk)
	}
	wg.Wait()
	if !sum.Full(cfg.PageSize) {
		sum.Next = pageNextDue(next, tickets, cfg.GraceMs)
	}
	sum.Duration = time.Since(start)
	return sum, nil
}

// TicketError ties a per-ticket failure to its trigger for diagnostics.
type TicketError struct {
	TriggerID string
	Outcome   Outcome
	Reason    Reason
	Err       error
}

func (e *TicketError) Error() string {
	msg := "trigger " + e.TriggerID + ": " + string(e.Outcome)
	if e.Reason != "" {
		msg += " (" + string(e.Reason) + ")"
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *TicketError) Unwrap() error { return e.Err }

func decideAndCommit(ctx context.Context, st Store, cfg RoundConfig, tk Ticket) (CommitResult, error) {
	sched, err := parseTicket(tk)
	if err != nil {
		return ReasonCronInvalid.Result(), &TicketError{TriggerID: tk.TriggerID, Outcome: Failed, Reason: ReasonCronInvalid, Err: err}
	}
	d, err := Decide(ticketInput(sched, tk, cfg.GraceMs))
	if err != nil {
		return ReasonDecisionFailed.Result(), &TicketError{TriggerID: tk.TriggerID, Outcome: Failed, Reason: ReasonDecisionFailed, Err: err}
	}
	p := CommitParams{Ticket: tk, Decision: d, GraceMs: cfg.GraceMs}
	if d.Action == Admit {
		p.RunID, p.AttemptID = cfg.NewID(), cfg.NewID()
	}
	res, err := st.ScheduleCommit(ctx, p)
	if err != nil || res.Outcome == Failed || res.Outcome == Unavailable {
		if res.Outcome == "" {
			res.Outcome = Failed
		}
		return res, &TicketError{TriggerID: tk.TriggerID, Outcome: res.Outcome, Reason: res.Reason, Err: err}
	}
	return res, nil
}

// ErrUnavailable marks a store error that means the database connection
// is gone (never a caller's own deadline or cancellation); a cluster
// replica that sees one stops scheduling and re-activates on a fresh pool.
var ErrUnavailable = errors.New("database unavailable")
