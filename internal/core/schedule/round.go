package schedule

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// Limits shared by every profile: of a page, and of the groups a page
// commits side by side.
const (
	MaxPageSize = 256
	MaxParallel = 16
)

// RoundConfig configures one round. It has no clock: every decision uses
// its ticket's ObservedAtMs.
type RoundConfig struct {
	// PageSize is how many rows one round takes (1–256).
	PageSize int
	// GraceMs is the misfire grace period.
	GraceMs int64
	// Parallel is how many commit groups of one page run at once (1–16);
	// see MinCommitGroup.
	Parallel int
	// NewIDs sets each element of its argument to a fresh identity, for
	// the Run and Attempt of each admission of a page: called once a page's
	// tickets are decided, for its admissions only, so a page's ids can be
	// minted together (ids.Fill).
	NewIDs func([]string)
	// DueByMs, when above 0, claims ahead (AheadTaker): the take also
	// holds the rows that fall due at or before this instant of the
	// store's clock, which may lie ahead of it, and each such ticket is
	// decided at its own due time. 0 takes only what is due already.
	DueByMs int64
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
	if c.NewIDs == nil {
		return qlerror.New(qlerror.Internal, "round config without an id allocator")
	}
	if c.DueByMs < 0 {
		return qlerror.New(qlerror.Invalid, "claim-ahead instant %d is negative", c.DueByMs)
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
	// Started is when the round's take began, by this host's clock, and
	// Duration how long the round took from then. The loop reports a
	// page committed in flight only once the next page is taken, so
	// the time its line is written says neither when it began nor when
	// it ended.
	Started  time.Time
	Duration time.Duration
	// Take, Decide and Commit split Duration by stage: the take's round
	// trip, deciding its tickets, and committing them (the groups side by
	// side, so the slowest group's time). Groups counts the commit groups.
	// They are for diagnostics only.
	Take, Decide, Commit time.Duration
	Groups               int
	// Admitted lists the Run ids admitted, for waking a dispatcher.
	Admitted []string
	// AdmissionLagMs lists, per admitted occurrence, how late its Run was
	// created: CommitResult.AdmittedAtMs (database time in the cluster)
	// minus the occurrence's due time (its scheduled time plus jitter),
	// so it holds the wait for a claim and the commit alike, and a row
	// claimed ahead of its due time counts from that due time. For
	// monitoring. It holds the admissions within the misfire grace of
	// their due time; CatchUpLagMs the later ones (catch-ups).
	AdmissionLagMs []int64
	CatchUpLagMs   []int64
	// Reasons counts the raced, failed and unavailable tickets by reason;
	// every one has a reason (a failure nothing names is write_failed).
	// For monitoring.
	Reasons map[Reason]int
	// Passed counts, per ledger reason, the occurrences the round's
	// committed decisions passed over without a Run, as their commits
	// wrote them to the ledger (CommitResult.Passed; each such occurrence
	// is one count of a ledger entry). For monitoring.
	Passed map[PassReason]int64
	// Finished counts the Runs the round's committed decisions finished
	// (CommitResult.Finished). For monitoring.
	Finished run.FinishCounts
	// CancelledUnstarted counts, by trigger id, the Runs the round's
	// committed admissions cancelled before they started under overlap
	// cancel_previous (the cancels of CommitResult.Finished): while the
	// slots stay full every occurrence of such a trigger can be cancelled
	// so, and Diagnostics warns of it (CodeOverlapCancelledUnstarted).
	// Nil when there was none.
	CancelledUnstarted map[string]int
	// Errors are per-ticket failures (decision or commit), for diagnostics.
	Errors []error
	// Unreadable counts the rows this round failed because this host
	// cannot read or decide their stored revision (cron_invalid: a cron or
	// zone it cannot parse; decision_failed: a policy or bound this build
	// does not know, or a cron with no occurrence left), or whose commit
	// failed closed on its own stored state (failsOnItsRow), and that the
	// next take passes over: on the cluster, each kept by its failed ticket's claim
	// until it expires; on a single node, each its store was told to
	// recheck later (Rechecker).
	Unreadable int
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
// due, and it made progress or put rows this host cannot read out of the
// next take's way (Unreadable), so the next page holds other rows. A full
// page on which nothing could be committed — rows that keep failing
// closed, or a database that refuses every commit — waits for the
// cadence, or the scheduler would spin on the same rows as fast as the
// store answers. Waiting a cadence for each page of unreadable rows
// instead would let enough of them (more than a page for each cadence of
// the recheck: 24 at the edge profile's page of 4 every 5 s) come round
// again before the last was put aside, holding every row due after them
// back for as long as they stay unreadable.
func (s Summary) StartNextAtOnce(pageSize int) bool {
	return s.Full(pageSize) && (s.Progress() > 0 || s.Unreadable > 0)
}

// MinCommitGroup is the fewest decisions a page is split into a commit
// group for. Each group pays a transaction's fixed cost (its round trips,
// its durable flush); groups at least this large keep that small per
// decision while a large page still commits on several connections.
const MinCommitGroup = 64

// Page is one taken page whose tickets are decided and ready to commit.
// Taking the next page may overlap committing this one.
type Page struct {
	cfg RoundConfig
	sum Summary
	// commits are the decided tickets; decisions that failed before the
	// commit (cron_invalid, decision_failed) are already counted in sum and
	// never reach the store.
	commits []CommitParams
	// committed says Commit ran; unsettled are then the tickets it did
	// not admit, initialise or skip (Held lists them).
	committed bool
	unsettled []Ticket
	// unreadable are the tickets whose stored revision this host could
	// not read or decide (cron_invalid, decision_failed), or whose commit
	// failed closed on their row's own stored state (failsOnItsRow):
	// Commit has a Rechecker pass over their rows.
	unreadable []Ticket
}

// Full reports whether the take returned a whole page.
func (p *Page) Full() bool { return p.sum.Full(p.cfg.PageSize) }

// Taken is how many rows the take returned.
func (p *Page) Taken() int { return p.sum.Taken }

// TakePage takes one page and decides each ticket from its own observation
// time: the claim's, or for a row claimed ahead of its due time, that due
// time (decidedAt).
func TakePage(ctx context.Context, st Store, cfg RoundConfig) (*Page, error) {
	p := &Page{cfg: cfg, sum: Summary{Started: time.Now(), Counts: make(map[Outcome]int, len(Outcomes)), Reasons: map[Reason]int{}, Passed: map[PassReason]int64{}}}
	if err := cfg.Validate(); err != nil {
		return p, err
	}
	tickets, next, err := takeWithHorizon(ctx, st, TakeParams{Limit: cfg.PageSize}, cfg.DueByMs)
	p.sum.Take = time.Since(p.sum.Started)
	if err != nil {
		p.sum.Duration = p.sum.Take
		return p, err
	}
	p.sum.Taken = len(tickets)
	if cfg.DueByMs > 0 {
		for i := range tickets {
			tickets[i].ObservedAtMs = decidedAt(tickets[i])
		}
	}
	for _, tk := range tickets {
		at := tk.ObservedAtMs
		if p.sum.FirstAcquiredMs == nil || at < *p.sum.FirstAcquiredMs {
			p.sum.FirstAcquiredMs = &at
		}
		if p.sum.LastAcquiredMs == nil || at > *p.sum.LastAcquiredMs {
			p.sum.LastAcquiredMs = &at
		}
		c, err := decide(cfg, tk)
		if err != nil {
			p.sum.Counts[Failed]++
			var te *TicketError
			if errors.As(err, &te) {
				p.sum.Reasons[te.Reason]++
				if te.Revision != 0 {
					p.unreadable = append(p.unreadable, tk)
				}
			}
			p.sum.Errors = append(p.sum.Errors, err)
			continue
		}
		p.commits = append(p.commits, c)
	}
	p.identify()
	if !p.sum.Full(cfg.PageSize) {
		p.sum.Next = pageNextDue(next, tickets, cfg.GraceMs)
	}
	p.sum.Decide = time.Since(p.sum.Started) - p.sum.Take
	return p, nil
}

// identify gives each admission of the page its Run and Attempt ids, in
// page order, Run before Attempt, as deciding one ticket after the other
// once gave them.
func (p *Page) identify() {
	n := 0
	for _, c := range p.commits {
		if c.Decision.Action == Admit {
			n++
		}
	}
	if n == 0 {
		return
	}
	fresh := make([]string, 2*n)
	p.cfg.NewIDs(fresh)
	for i := range p.commits {
		if c := &p.commits[i]; c.Decision.Action == Admit {
			c.RunID, c.AttemptID, fresh = fresh[0], fresh[1], fresh[2:]
		}
	}
}

// Commit commits the page's decisions through ScheduleCommitPage: in one
// group, or in up to cfg.Parallel groups of at least MinCommitGroup
// committed side by side, has a Rechecker pass over the rows this host
// could not read (recheckLater), and reports the whole round.
func (p *Page) Commit(ctx context.Context, st Store) Summary {
	groups := min(p.cfg.Parallel, (len(p.commits)+MinCommitGroup-1)/MinCommitGroup)
	size := 0
	if groups > 0 {
		size = (len(p.commits) + groups - 1) / groups
	}
	p.sum.Groups = groups
	p.committed = true
	began := time.Now()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for lo := 0; lo < len(p.commits); lo += size {
		group := p.commits[lo:min(lo+size, len(p.commits))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			results, err := st.ScheduleCommitPage(ctx, group)
			mu.Lock()
			defer mu.Unlock()
			p.record(group, results, err)
		}()
	}
	wg.Wait()
	p.recheckLater(ctx, st)
	p.sum.Commit = time.Since(began)
	p.sum.Duration = time.Since(p.sum.Started)
	return p.sum
}

// record counts one group's results. A store that judged none of them
// gives each the failure that stopped it (a held write lock is
// lock_not_available, not a failure without a name), and those results are
// counted and reported as any other: as tickets failing alike for a cause
// outside their triggers, the failure is one warning, said once a minute
// while it lasts (Diagnostics.Round); a store that answered
// for another number of decisions failed every one as write_failed. No
// raced, failed or unavailable decision is ever counted without a reason:
// an alert grouped by reason would show an empty one as nothing to act on.
func (p *Page) record(group []CommitParams, results []CommitResult, err error) {
	if len(results) != len(group) {
		if err == nil {
			err = fmt.Errorf("the store answered %d results for %d decisions", len(results), len(group))
		}
		p.sum.Counts[Failed] += len(group)
		p.sum.Reasons[ReasonWriteFailed] += len(group)
		for _, c := range group {
			p.unsettled = append(p.unsettled, c.Ticket)
		}
		p.sum.Errors = append(p.sum.Errors, fmt.Errorf("committing %d decisions: %w", len(group), err))
		return
	}
	told := false
	for i, res := range results {
		p.sum.Finished.Merge(res.Finished)
		if n := res.Finished.Of(run.Cancelled); n > 0 {
			if p.sum.CancelledUnstarted == nil {
				p.sum.CancelledUnstarted = map[string]int{}
			}
			p.sum.CancelledUnstarted[group[i].Ticket.TriggerID] += n
		}
		if res.Outcome == "" {
			res.Outcome = Failed
		}
		if res.Reason == "" && (res.Outcome == Raced || res.Outcome == Failed || res.Outcome == Unavailable) {
			res.Reason = ReasonWriteFailed
		}
		p.sum.Counts[res.Outcome]++
		switch res.Outcome {
		case Admitted:
			p.sum.Admitted = append(p.sum.Admitted, res.RunID)
			// An admission later than the misfire grace is a catch-up
			// (only fire_once admits one): after an outage or a resume
			// its lag is the outage's, not the scheduler's, and counted
			// apart so that it does not hide the on-time lag for a day.
			if lag := res.AdmittedAtMs - group[i].Decision.FireAtMs; lag > p.cfg.GraceMs {
				p.sum.CatchUpLagMs = append(p.sum.CatchUpLagMs, lag)
			} else {
				p.sum.AdmissionLagMs = append(p.sum.AdmissionLagMs, lag)
			}
		case Raced, Failed, Unavailable:
			p.sum.Reasons[res.Reason]++
			p.unsettled = append(p.unsettled, group[i].Ticket)
			if res.Outcome == Failed && failsOnItsRow(res.Reason) {
				p.unreadable = append(p.unreadable, group[i].Ticket)
			}
		}
		// What the commit wrote to the ledger, not what the decision
		// handed to it passed: the store may pass an admission over for
		// overlap under its lock.
		for _, ps := range res.Passed {
			p.sum.Passed[ps.Reason] += ps.Count
		}
		if res.Err != nil || res.Outcome == Failed || res.Outcome == Unavailable {
			if res.Err == nil {
				res.Err = err
			}
			told = told || err != nil
			te := &TicketError{TriggerID: group[i].Ticket.TriggerID, Outcome: res.Outcome, Reason: res.Reason, Err: res.Err}
			if res.Outcome == Failed && failsOnItsRow(res.Reason) {
				te.Revision = group[i].Ticket.TriggerRevision
			}
			p.sum.Errors = append(p.sum.Errors, te)
		}
	}
	if err != nil && !told {
		p.sum.Errors = append(p.sum.Errors, fmt.Errorf("committing %d decisions: %w", len(group), err))
	}
}

// failsOnItsRow reports whether a commit that failed closed with reason
// did so on its own row's stored state, which no later round mends by
// itself: a stored revision that no longer hashes to its digest, a pinned
// execution revision missing or corrupt, or a cursor at an occurrence
// that already has its Run. Taken again, such a row fails again, so it is
// put aside as a row this host cannot read is (recheckLater) and its
// failure is its revision's (Repeats). A lost race, a snapshot or cursor
// that moved since the take (the next take reads the row afresh) or a
// failure of the database as a whole (every row fails alike, none holds
// the others back) is not.
func failsOnItsRow(r Reason) bool {
	switch r {
	case ReasonTriggerDigestCorrupt, ReasonTaskDigestCorrupt, ReasonExecutionMissing, ReasonExecutionCorrupt, ReasonOccurrenceExists:
		return true
	}
	return false
}

// Round takes one page, decides each ticket from its own observation time
// and commits the page's decisions.
func Round(ctx context.Context, st Store, cfg RoundConfig) (Summary, error) {
	p, err := TakePage(ctx, st, cfg)
	if err != nil {
		return p.sum, err
	}
	return p.Commit(ctx, st), nil
}

// TicketError ties a per-ticket failure to its trigger for diagnostics.
type TicketError struct {
	TriggerID string
	// Revision is the trigger revision the ticket stood on, when the
	// failure is one of that revision's or its row's stored state (its
	// cron, policies or bounds, failed before the commit as cron_invalid
	// or decision_failed; a corruption the commit failed closed on,
	// failsOnItsRow): no later round mends it by itself, so the row is
	// put aside (recheckLater) and its failure logged once (Repeats).
	Revision int64
	Outcome  Outcome
	Reason   Reason
	Err      error
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

// decide derives a ticket's decision; a failure here never reaches the
// store. Either failure is one of the ticket's revision and cursor alone
// (the round's own configuration was validated before the take): a cron
// or zone this host cannot parse, or a stored policy or bound this build
// does not know (a newer build published it) or a cron with no occurrence
// left, so the next round would fail the row the same way.
func decide(cfg RoundConfig, tk Ticket) (CommitParams, error) {
	sched, err := parseTicket(tk)
	if err != nil {
		return CommitParams{}, &TicketError{TriggerID: tk.TriggerID, Revision: tk.TriggerRevision, Outcome: Failed, Reason: ReasonCronInvalid,
			Err: storedCronRefusal(tk.TriggerID, err, RemedyReapply)}
	}
	d, err := Decide(ticketInput(sched, tk, cfg.GraceMs))
	if err != nil {
		return CommitParams{}, &TicketError{TriggerID: tk.TriggerID, Revision: tk.TriggerRevision, Outcome: Failed, Reason: ReasonDecisionFailed, Err: err}
	}
	return CommitParams{Ticket: tk, Decision: d, GraceMs: cfg.GraceMs}, nil
}

// ErrUnavailable marks a store error that means the database connection
// is gone (never a caller's own deadline or cancellation); a cluster
// replica that sees one stops scheduling and re-activates on a fresh pool.
var ErrUnavailable = errors.New("database unavailable")
