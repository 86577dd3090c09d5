package schedule

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// DefaultBackfillMax is how many occurrences a backfill considers when its
// request names no cap; MaxBackfill is the largest cap one request may ask.
const (
	DefaultBackfillMax = 1_000
	MaxBackfill        = 100_000
)

// The reasons of a backfill's refusals: the console says each in the
// page's language.
const (
	RefusalBackfillReversed qlerror.Reason = "backfill_reversed"
	RefusalBackfillFuture   qlerror.Reason = "backfill_in_future"
	RefusalBackfillCap      qlerror.Reason = "backfill_cap"
	RefusalBackfillTooMany  qlerror.Reason = "backfill_too_many"
	RefusalCronUnparsable   qlerror.Reason = "cron_unparsable"
)

// errDryRun is what a dry run's transaction returns to be rolled back
// (EndBackfill); the store then answers with what the transaction had
// counted (RolledBack), so a preview takes the very path of the backfill
// it previews.
var errDryRun = qlerror.New(qlerror.Internal, "backfill: a dry run, rolled back")

// EndBackfill is what a backfill's transaction returns last: for a dry
// run an error that rolls it back, nil (commit) otherwise.
func EndBackfill(r BackfillRequest) error {
	if r.DryRun {
		return errDryRun
	}
	return nil
}

// RolledBack reports whether a backfill's transaction ended with
// EndBackfill's rollback: its count is then the dry run's answer.
func RolledBack(err error) bool { return errors.Is(err, errDryRun) }

// CheckBackfill validates a backfill request against the store's time
// nowMs and returns its cap. Its messages name each input as r.Names
// spells it: the CLI's flags, the API's fields, the console's form.
func CheckBackfill(r BackfillRequest, nowMs int64) (int, error) {
	switch {
	case r.FromMs > r.ToMs:
		return 0, qlerror.New(qlerror.Invalid, "backfill: the window's start%s is after its end%s; give the start first", named(r.Names.From), named(r.Names.To)).
			Because(RefusalBackfillReversed)
	case r.FromMs > nowMs:
		return 0, qlerror.New(qlerror.Invalid, "backfill: the window's start%s is in the future; backfill only admits occurrences that are already due", named(r.Names.From)).
			Because(RefusalBackfillFuture)
	case r.ToMs > nowMs:
		return 0, qlerror.New(qlerror.Invalid, "backfill: the window's end%s is in the future (the store's time is %s); end the window at or before now",
			named(r.Names.To), time.UnixMilli(nowMs).UTC().Format(time.RFC3339Nano)).Because(RefusalBackfillFuture)
	case r.Max < 0 || r.Max > MaxBackfill:
		return 0, qlerror.New(qlerror.Invalid, "backfill: the cap%s %d is outside 1–%d", named(r.Names.Max), r.Max, MaxBackfill).Because(RefusalBackfillCap)
	case r.Max == 0:
		return DefaultBackfillMax, nil
	}
	return r.Max, nil
}

// named is a surface's name for an input, in parentheses after the plain
// words that say it; nothing when the surface gave none.
func named(name string) string {
	if name == "" {
		return ""
	}
	return " (" + name + ")"
}

// BackfillPlan checks r against the store's time nowMs and lists the
// occurrences it asks for (BackfillOccurrences), with the result's
// Occurrences, Truncated, FirstMs and LastMs filled in. A window holding
// more than the cap is cut there, or refused when r.RefuseOverMax.
func BackfillPlan(tk Ticket, r BackfillRequest, nowMs int64) ([]int64, BackfillResult, error) {
	limit, err := CheckBackfill(r, nowMs)
	if err != nil {
		return nil, BackfillResult{}, err
	}
	occ, more, err := BackfillOccurrences(tk, r.FromMs, r.ToMs, limit)
	if err != nil {
		return nil, BackfillResult{}, storedCronRefusal(r.TriggerID, err, RemedyReapply)
	}
	out := BackfillResult{Occurrences: len(occ), Truncated: more}
	if len(occ) > 0 {
		out.FirstMs, out.LastMs = occ[0], occ[len(occ)-1]
	} else {
		out.NoneTaken = WhyNoneTaken(tk, r.FromMs, r.ToMs)
	}
	if more && r.RefuseOverMax {
		return nil, BackfillResult{}, qlerror.New(qlerror.Invalid, "backfill: the window holds more than %d occurrences, the most one backfill here admits (the %d-th is at %s); narrow the window, or backfill the rest in another",
			limit, limit, time.UnixMilli(out.LastMs).UTC().Format(time.RFC3339Nano)).Because(RefusalBackfillTooMany)
	}
	return occ, out, nil
}

// BackfillOccurrences lists the nominal occurrences of the ticket's cron in
// [fromMs, toMs] that lie within its startAt/endAt bounds and that the
// clock has already decided, at most limit of them, and whether more
// follow (the last listed is then where the window was cut).
//
// The occurrences from the row's cursor on (from the revision's creation
// while it has none) are the clock's still: it admits or passes each of
// them with the same idempotency key, and would find a backfilled one's
// Run in its way, so a backfill never takes them.
func BackfillOccurrences(tk Ticket, fromMs, toMs int64, limit int) (occ []int64, more bool, err error) {
	s, err := parseTicket(tk)
	if err != nil {
		return nil, false, err
	}
	lo, hi := boundedWindow(tk, fromMs, toMs)
	hi = min(hi, undecidedFrom(tk)-1)
	for at, ok := s.Next(lo - 1); ok && at <= hi; at, ok = s.Next(at) {
		if len(occ) == limit {
			return occ, true, nil
		}
		occ = append(occ, at)
	}
	return occ, false, nil
}

// boundedWindow is the part of [fromMs, toMs] within the trigger's
// startAt/endAt bounds (empty when lo > hi).
func boundedWindow(tk Ticket, fromMs, toMs int64) (lo, hi int64) {
	lo, hi = max(fromMs, tk.Cron.StartAtMs), toMs
	if tk.Cron.EndAtMs != 0 {
		hi = min(hi, tk.Cron.EndAtMs)
	}
	return lo, hi
}

// undecidedFrom is the first instant whose occurrences are still the
// clock's: the row's cursor, or the revision's creation while it has none.
func undecidedFrom(tk Ticket) int64 {
	if tk.NextFireAtMs != nil {
		return *tk.NextFireAtMs
	}
	return tk.TriggerCreatedAtMs
}

// NoneReason says why a backfill took none of the occurrences its window
// holds.
type NoneReason string

// The reasons a window's occurrences are none of a backfill's: the console
// says each in the page's language (bf.none.<reason>).
const (
	// NoneBeforeStart: the window holds no occurrence from the trigger's
	// startAt on (it ends before it, or reaches past it to no occurrence),
	// and those before it are none of the trigger's.
	NoneBeforeStart NoneReason = "before_start"
	// NoneAfterEnd: the window holds no occurrence up to the trigger's
	// endAt (it starts after it, or reaches back before it to no
	// occurrence), and those after it are none of the trigger's.
	NoneAfterEnd NoneReason = "after_end"
	// NoneNotDecided: each occurrence of the window within the bounds lies
	// at or after the row's cursor (after the revision's creation while
	// the row has none): the clock has not decided it yet, and admits or
	// passes it itself.
	NoneNotDecided NoneReason = "not_decided"
)

// NoneReasons are all the reasons, for the tables that word them.
var NoneReasons = []NoneReason{NoneBeforeStart, NoneAfterEnd, NoneNotDecided}

// NoneTaken says why a backfill took no occurrence of its window: Reason,
// and AtMs, the instant that kept them from it (the trigger's startAt or
// endAt, or the first instant not decided yet). The zero value says
// nothing: the window holds no occurrence of the cron within the bounds,
// or the backfill took some.
type NoneTaken struct {
	Reason NoneReason
	AtMs   int64
}

// WhyNoneTaken says why the window [fromMs, toMs] gives a backfill of the
// ticket's trigger no occurrence, as BackfillOccurrences lists them: a
// window of the cron's occurrences that are all still the clock's, a
// window ending before startAt or starting after endAt, or one reaching
// across a bound whose occurrences all lie beyond it. The zero NoneTaken
// when none of these holds (or the cron does not parse).
func WhyNoneTaken(tk Ticket, fromMs, toMs int64) NoneTaken {
	s, err := parseTicket(tk)
	if err != nil {
		return NoneTaken{}
	}
	// holds: the cron has an occurrence in [lo, hi].
	holds := func(lo, hi int64) bool {
		at, ok := s.Next(lo - 1)
		return lo <= hi && ok && at <= hi
	}
	c := tk.Cron
	if lo, hi := boundedWindow(tk, fromMs, toMs); lo <= hi {
		if at, ok := s.Next(lo - 1); ok && at <= hi && at >= undecidedFrom(tk) {
			return NoneTaken{Reason: NoneNotDecided, AtMs: undecidedFrom(tk)}
		}
	}
	switch {
	case toMs < c.StartAtMs, fromMs < c.StartAtMs && holds(fromMs, c.StartAtMs-1):
		return NoneTaken{Reason: NoneBeforeStart, AtMs: c.StartAtMs}
	case c.EndAtMs != 0 && (fromMs > c.EndAtMs || toMs > c.EndAtMs && holds(max(fromMs, c.EndAtMs+1), toMs)):
		return NoneTaken{Reason: NoneAfterEnd, AtMs: c.EndAtMs}
	}
	return NoneTaken{}
}

// Message says in English why nothing was taken and what to do, "" for the
// zero NoneTaken. The CLI prints it and the API answers with it; the
// console words each reason in the page's language.
func (n NoneTaken) Message() string {
	at := time.UnixMilli(n.AtMs).UTC().Format(time.RFC3339Nano)
	switch n.Reason {
	case NoneBeforeStart:
		return fmt.Sprintf("the window holds no occurrence from the trigger's startAt %s on, and the trigger has none before it: move the window to %s or later", at, at)
	case NoneAfterEnd:
		return fmt.Sprintf("the window holds no occurrence up to the trigger's endAt %s, and the trigger has none after it: move the window to %s or earlier", at, at)
	case NoneNotDecided:
		return fmt.Sprintf("occurrences from %s on are not decided yet: the schedule admits them itself (a server running on the database does), so a backfill leaves them to it; end the window before %s", at, at)
	}
	return ""
}

// DefaultBackfillFrom is the start of a backfill window of trigger t that
// ends at toMs and holds at most limit of the occurrences a backfill would
// take: spanMs before toMs when that window holds no more, else the
// earliest whole number of stepMs before toMs (the finest step the
// caller's form shows) from which it does, so that a window offered by
// default is never refused for its size. The occurrences are counted as
// BackfillOccurrences lists them — within the bounds, before the cursor —
// except that a trigger with no cursor (no server decided it yet) counts
// them all, which can only shorten the window. A cron that does not parse
// gets spanMs: the backfill then says why it cannot be taken.
func DefaultBackfillFrom(t TriggerStatus, toMs, spanMs, stepMs int64, limit int) int64 {
	s, err := parsedCrons.parse(t.Cron.Expression, t.Cron.Timezone)
	if err != nil || stepMs <= 0 || limit < 1 {
		return toMs - spanMs
	}
	tk := Ticket{Snapshot: Snapshot{Cron: t.Cron, NextFireAtMs: t.NextFireAtMs, TriggerCreatedAtMs: math.MaxInt64}}
	fits := func(fromMs int64) bool {
		lo, hi := boundedWindow(tk, fromMs, toMs)
		hi = min(hi, undecidedFrom(tk)-1)
		n := 0
		for at, ok := s.Next(lo - 1); ok && at <= hi; at, ok = s.Next(at) {
			if n++; n > limit {
				return false
			}
		}
		return true
	}
	if fits(toMs - spanMs) {
		return toMs - spanMs
	}
	// The fewest steps back whose window does not fit; the window one step
	// shorter does (a window of zero steps holds at most one occurrence).
	steps := sort.Search(int(spanMs/stepMs), func(k int) bool { return !fits(toMs - int64(k+1)*stepMs) })
	return toMs - int64(steps)*stepMs
}
