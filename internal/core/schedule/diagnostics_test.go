package schedule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

func TestTheNextRoundStartsAtOnceOnlyAfterAFullPageThatMadeProgressOrPutUnreadableRowsAside(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		taken      int
		counts     map[Outcome]int
		unreadable int
		want       bool
	}{
		{"full page, all admitted", 4, map[Outcome]int{Admitted: 4}, 0, true},
		{"full page, one initialized among failures", 4, map[Outcome]int{Initialized: 1, Failed: 3}, 0, true},
		{"full page, one skipped among races", 4, map[Outcome]int{Skipped: 1, Raced: 3}, 0, true},
		{"full page, all failed", 4, map[Outcome]int{Failed: 4}, 0, false},
		{"full page, all unreadable and passed over by the next take", 4, map[Outcome]int{Failed: 4}, 4, true},
		{"full page, all raced", 4, map[Outcome]int{Raced: 4}, 0, false},
		{"full page, all unavailable", 4, map[Outcome]int{Unavailable: 2, Failed: 2}, 0, false},
		{"short page, all admitted", 3, map[Outcome]int{Admitted: 3}, 0, false},
		{"empty page", 0, map[Outcome]int{}, 0, false},
	} {
		s := Summary{Taken: c.taken, Counts: c.counts, Unreadable: c.unreadable}
		if got := s.StartNextAtOnce(4); got != c.want {
			t.Errorf("%s: start the next round at once = %v, want %v", c.name, got, c.want)
		}
	}
}

// sqlStateErr stands in for a driver error that reports a SQLSTATE.
type sqlStateErr struct{ state, text string }

func (e sqlStateErr) Error() string    { return e.text }
func (e sqlStateErr) SQLState() string { return e.state }

// newDiagnostics returns Diagnostics that log JSON at debug into the
// buffer it returns, their Repeats on a clock the test moves through the
// time it points at.
func newDiagnostics() (*bytes.Buffer, *Diagnostics, *time.Time) {
	buf := new(bytes.Buffer)
	now := time.Unix(1_800_000_000, 0)
	reps := NewRepeats()
	reps.now = func() time.Time { return now }
	return buf, &Diagnostics{Log: slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), Repeats: reps}, &now
}

func records(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var rec map[string]any
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}

func TestRoundRecordsCarryStableCodesCountsAndReasonsButNoDriverText(t *testing.T) {
	t.Parallel()
	buf, d, _ := newDiagnostics()
	driver := sqlStateErr{"40001", `ERROR: could not serialize access (password=hunter2)`}
	first, last := int64(1000), int64(1005)
	d.Round(context.Background(), Summary{
		Taken: 3, Counts: map[Outcome]int{Admitted: 1, Failed: 2}, FirstAcquiredMs: &first, LastAcquiredMs: &last, Unreadable: 1,
		Errors: []error{
			&TicketError{TriggerID: "t-1", Outcome: Failed, Reason: "write_failed", Err: fmt.Errorf("commit: %w", driver)},
			&TicketError{TriggerID: "t-2", Outcome: Failed, Reason: "task_digest_mismatch",
				Err: qlerror.New(qlerror.Internal, "task x revision 1 has another digest")},
		},
	})
	d.RoundFailed(qlerror.Wrap(qlerror.Unavailable, errors.New("dial tcp: secret-host:5432"), "claiming schedule rows"))
	recs := records(t, buf)
	if len(recs) != 4 {
		t.Fatalf("%d records, want a round, two tickets and a round failure:\n%s", len(recs), buf.String())
	}
	round, t1, t2, failed := recs[0], recs[1], recs[2], recs[3]
	if round["code"] != CodeRound || round["level"] != "INFO" || round["taken"] != 3.0 || round["admitted"] != 1.0 ||
		round["failed"] != 2.0 || round["raced"] != 0.0 || round["first_acquired_ms"] != 1000.0 || round["last_acquired_ms"] != 1005.0 ||
		round["unreadable"] != 1.0 {
		t.Fatalf("round record %v", round)
	}
	if _, ok := round["owner"]; ok {
		t.Fatalf("a scheduler without an owner logs one: %v", round)
	}
	if t1["code"] != CodeTicketFailed || t1["level"] != "WARN" || t1["trigger_id"] != "t-1" || t1["outcome"] != "failed" ||
		t1["reason"] != "write_failed" || t1["sqlstate"] != "40001" || t1["error"] != "commit of the ticket ended failed (write_failed)" {
		t.Fatalf("first ticket record %v", t1)
	}
	if t2["reason"] != "task_digest_mismatch" || t2["error_code"] != "internal" || t2["error"] != "task x revision 1 has another digest" {
		t.Fatalf("second ticket record %v", t2)
	}
	if failed["code"] != CodeRoundFailed || failed["error_code"] != "unavailable" || failed["error"] != "claiming schedule rows" {
		t.Fatalf("round failure record %v", failed)
	}
	if out := buf.String(); strings.Contains(out, "hunter2") || strings.Contains(out, "secret-host") || strings.Contains(out, "serialize") {
		t.Fatalf("driver text reached the diagnostic log:\n%s", out)
	}
}

func TestAnEmptyRoundIsDebugAndAStoppedRoundsTicketsAreNotWarnings(t *testing.T) {
	t.Parallel()
	buf, d, _ := newDiagnostics()
	d.Owner = "replica-a"
	d.Round(context.Background(), Summary{Counts: map[Outcome]int{}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d.Round(ctx, Summary{Taken: 1, Counts: map[Outcome]int{Unavailable: 1},
		Errors: []error{&TicketError{TriggerID: "t-1", Outcome: Unavailable, Err: context.Canceled}}})
	recs := records(t, buf)
	if len(recs) != 3 {
		t.Fatalf("%d records:\n%s", len(recs), buf.String())
	}
	if recs[0]["level"] != "DEBUG" || recs[0]["owner"] != "replica-a" {
		t.Fatalf("empty round record %v", recs[0])
	}
	if _, ok := recs[0]["first_acquired_ms"]; ok {
		t.Fatalf("an empty round reports an acquired time: %v", recs[0])
	}
	if recs[2]["code"] != CodeTicketFailed || recs[2]["level"] != "DEBUG" || recs[2]["error"] != "interrupted" {
		t.Fatalf("abandoned ticket record %v", recs[2])
	}
}

// A revision's ticket that fails in every round (a stored zone this host
// lacks) is logged at warn once, not once a round: again at debug, with
// its round (nothing else taken) at debug too, until RepeatEvery has
// passed; another trigger, another revision of it (a republish) or
// another reason is logged at warn at once.
func TestATicketFailingEveryRoundIsWarnedOnceAnHourNotEachRound(t *testing.T) {
	t.Parallel()
	buf, d, now := newDiagnostics()
	zone := func(trigger string, revision int64) error {
		return &TicketError{TriggerID: trigger, Revision: revision, Outcome: Failed, Reason: ReasonCronInvalid,
			Err: storedCronRefusal(trigger, &cron.ParseError{Part: "timezone", Input: "Mars/Olympus"}, RemedyReapply)}
	}
	round := func(errs ...error) (roundLevel string, ticketLevels []string) {
		buf.Reset()
		d.Round(context.Background(), Summary{Taken: len(errs), Counts: map[Outcome]int{Failed: len(errs)}, Errors: errs})
		recs := records(t, buf)
		for _, r := range recs[1:] {
			ticketLevels = append(ticketLevels, r["level"].(string))
		}
		return recs[0]["level"].(string), ticketLevels
	}
	for _, c := range []struct {
		what   string
		after  time.Duration
		errs   []error
		round  string
		ticket []string
	}{
		{"first met", 0, []error{zone("t-1", 3)}, "INFO", []string{"WARN"}},
		{"the next round", time.Second, []error{zone("t-1", 3)}, "DEBUG", []string{"DEBUG"}},
		{"59 minutes on", 59 * time.Minute, []error{zone("t-1", 3)}, "DEBUG", []string{"DEBUG"}},
		{"with another trigger's", time.Second, []error{zone("t-1", 3), zone("t-2", 1)}, "INFO", []string{"DEBUG", "WARN"}},
		{"republished", time.Second, []error{zone("t-1", 4)}, "INFO", []string{"WARN"}},
		{"an hour after it was warned of", time.Hour, []error{zone("t-1", 4)}, "INFO", []string{"WARN"}},
		{"a commit's failure, no revision's", time.Second, []error{&TicketError{TriggerID: "t-1", Outcome: Failed, Reason: "write_failed"}}, "INFO", []string{"WARN"}},
		{"the same again: a cause outside the trigger, said once a minute", time.Second, []error{&TicketError{TriggerID: "t-1", Outcome: Failed, Reason: "write_failed"}}, "DEBUG", []string{"DEBUG"}},
	} {
		*now = now.Add(c.after)
		r, tickets := round(c.errs...)
		if r != c.round || fmt.Sprint(tickets) != fmt.Sprint(c.ticket) {
			t.Errorf("%s: round at %s, tickets at %v; want %s and %v:\n%s", c.what, r, tickets, c.round, c.ticket, buf.String())
		}
	}
	buf.Reset()
	*now = now.Add(2 * time.Hour)
	d.Round(context.Background(), Summary{Taken: 1, Counts: map[Outcome]int{Failed: 1}, Errors: []error{zone("t-9", 1)}})
	if rec := records(t, buf)[1]; rec["error_code"] != "failed_precondition" || rec["reason"] != "cron_invalid" ||
		!strings.Contains(rec["error"].(string), `this server does not know its time zone "Mars/Olympus"`) {
		t.Errorf("a ticket of a zone this host lacks logged as %v; want the refusal saying so and what mends it", rec)
	}
}

// A row whose stored misfire policy this build does not know (a newer
// build published it) fails every decision before the commit
// (decision_failed) until it is republished, as a row of a zone this host
// lacks does: its failure is one of its revision, warned of when first
// met and then at debug, not at warn each time the row is taken.
func TestAPolicyThisBuildDoesNotKnowIsWarnedOncePerRevisionNotEachRound(t *testing.T) {
	t.Parallel()
	buf, d, _ := newDiagnostics()
	newer := ticket("t-newer", cursor(t0), t0+5, "catch_up_all")
	newer.TriggerRevision = 7
	st := &recordingStore{tickets: []Ticket{newer}}
	var levels []any
	for range 2 {
		sum, err := Round(context.Background(), st, RoundConfig{PageSize: 4, Parallel: 1, GraceMs: minute, NewIDs: sameIDs})
		if err != nil {
			t.Fatal(err)
		}
		var te *TicketError
		if len(sum.Errors) != 1 || !errors.As(sum.Errors[0], &te) || te.Reason != ReasonDecisionFailed || te.Revision != 7 {
			t.Fatalf("the round's errors %v; want one decision_failed of revision 7", sum.Errors)
		}
		buf.Reset()
		d.Round(context.Background(), sum)
		recs := records(t, buf)
		levels = append(levels, recs[len(recs)-1]["level"])
	}
	if len(st.commits) != 0 {
		t.Fatalf("the store saw %d decisions; want none", len(st.commits))
	}
	if fmt.Sprint(levels) != "[WARN DEBUG]" {
		t.Fatalf("the ticket was logged at %v in two rounds; want warn, then debug", levels)
	}
}

// refusingStore fails each commit closed with the reason its trigger is
// mapped to, as an adapter that found the row's stored state wrong does.
type refusingStore struct {
	recordingStore
	reasons map[string]Reason
}

func (s *refusingStore) ScheduleCommitPage(_ context.Context, ps []CommitParams) ([]CommitResult, error) {
	out := make([]CommitResult, len(ps))
	for i, p := range ps {
		out[i] = CommitResult{Outcome: Failed, Reason: s.reasons[p.Ticket.TriggerID]}
	}
	return out, nil
}

// A commit that fails closed on its row's own stored state (a corrupt
// digest) is the failure of the ticket's revision, warned of once, not
// each time the row is taken again; one that failed for the write alone
// (write_failed) is a cause outside the trigger, warned of again once a
// minute while it lasts (TestACauseFailingEveryRoundIsWarnedOnceAMinuteWithTheRoundsHeldBack).
func TestACommitFailingOnItsRowsStoredStateIsWarnedOncePerRevision(t *testing.T) {
	t.Parallel()
	buf, d, _ := newDiagnostics()
	corrupt, write := ticket("t-corrupt", cursor(t0), t0+5, trigger.FireOnce), ticket("t-write", cursor(t0), t0+5, trigger.FireOnce)
	corrupt.TriggerRevision, write.TriggerRevision = 3, 3
	st := &refusingStore{recordingStore: recordingStore{tickets: []Ticket{corrupt, write}},
		reasons: map[string]Reason{"t-corrupt": ReasonTriggerDigestCorrupt, "t-write": ReasonWriteFailed}}
	var levels []string
	for range 2 {
		sum, err := Round(context.Background(), st, RoundConfig{PageSize: 4, Parallel: 1, GraceMs: minute, NewIDs: sameIDs})
		if err != nil {
			t.Fatal(err)
		}
		buf.Reset()
		d.Round(context.Background(), sum)
		for _, r := range records(t, buf)[1:] {
			levels = append(levels, r["trigger_id"].(string)+" "+r["level"].(string))
		}
	}
	if want := "[t-corrupt WARN t-write WARN t-corrupt DEBUG t-write DEBUG]"; fmt.Sprint(levels) != want {
		t.Fatalf("ticket records %v; want %s", levels, want)
	}
}

// Tickets of one round failing alike for a cause outside their triggers (a
// full disk refuses every commit of the page) are one warning that counts
// them, the others at debug with their own trigger ids; a revision's own
// failure among them keeps its warning, and a different cause its own.
func TestTicketsFailingAlikeForACauseOutsideTheirTriggersAreOneWarningWithTheirCount(t *testing.T) {
	t.Parallel()
	buf, d, _ := newDiagnostics()
	full := func(trigger string) error {
		return &TicketError{TriggerID: trigger, Outcome: Unavailable, Reason: "outcome_unknown",
			Err: qlerror.New(qlerror.Unavailable, "commit schedule decision: the disk is full; free space and retry")}
	}
	errs := []error{
		full("t-1"), full("t-2"),
		&TicketError{TriggerID: "t-3", Revision: 2, Outcome: Failed, Reason: ReasonCronInvalid,
			Err: storedCronRefusal("t-3", &cron.ParseError{Part: "timezone", Input: "Mars/Olympus"}, RemedyReapply)},
		full("t-4"),
		&TicketError{TriggerID: "t-5", Outcome: Failed, Reason: "write_failed", Err: qlerror.New(qlerror.Internal, "another cause")},
	}
	d.Round(context.Background(), Summary{Taken: len(errs), Counts: map[Outcome]int{Unavailable: 3, Failed: 2}, Errors: errs})
	recs := records(t, buf)[1:]
	type line struct {
		trigger, level string
		tickets        any
	}
	var got []line
	for _, r := range recs {
		got = append(got, line{r["trigger_id"].(string), r["level"].(string), r["tickets"]})
	}
	want := []line{{"t-1", "WARN", 3.0}, {"t-2", "DEBUG", nil}, {"t-3", "WARN", nil}, {"t-4", "DEBUG", nil}, {"t-5", "WARN", nil}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("ticket records %v, want %v:\n%s", got, want, buf.String())
	}
}

// A cause outside the triggers that fails every round while it lasts (a
// full disk) is warned of once a minute, as the executor's errors are,
// with the rounds held back in between, and the rounds it failed whole
// are at debug: an hour's outage is 60 warnings, not 3,600 warnings and
// 3,600 round lines.
func TestACauseFailingEveryRoundIsWarnedOnceAMinuteWithTheRoundsHeldBack(t *testing.T) {
	t.Parallel()
	buf, d, now := newDiagnostics()
	full := func(trigger string) error {
		return &TicketError{TriggerID: trigger, Outcome: Unavailable, Reason: "outcome_unknown",
			Err: qlerror.New(qlerror.Unavailable, "commit schedule decision: the disk is full; free space and retry")}
	}
	warned := 0
	var heldBack []any
	for second := range 3 * 60 {
		buf.Reset()
		d.Round(context.Background(), Summary{Taken: 2, Counts: map[Outcome]int{Unavailable: 2}, Errors: []error{full("t-1"), full("t-2")}})
		recs := records(t, buf)
		if recs[1]["level"] == "WARN" {
			warned++
			heldBack = append(heldBack, recs[1]["held_back"])
			if recs[0]["level"] != "INFO" {
				t.Errorf("second %d: the round of a warning at %s, want INFO", second, recs[0]["level"])
			}
		} else if recs[0]["level"] != "DEBUG" {
			t.Errorf("second %d: a round whose failures were all held back at %s, want DEBUG", second, recs[0]["level"])
		}
		*now = now.Add(time.Second)
	}
	if want := []any{nil, 59.0, 59.0}; warned != 3 || fmt.Sprint(heldBack) != fmt.Sprint(want) {
		t.Fatalf("over 3 minutes of a full disk, %d warnings held back %v rounds; want 3 with %v", warned, heldBack, want)
	}
}

// lockedStore judges no decision of a page: another process holds the
// database's write lock past every wait, so the store gives each decision
// that failure and answers it for the page too, as the SQLite adapter does.
type lockedStore struct{ recordingStore }

func (s *lockedStore) ScheduleCommitPage(_ context.Context, ps []CommitParams) ([]CommitResult, error) {
	locked := qlerror.New(qlerror.Unavailable, "commit schedule decision: the database is locked by another writer; retry, or check for a stuck process holding the file")
	out := make([]CommitResult, len(ps))
	for i := range ps {
		out[i] = ReasonLockNotAvailable.Result()
		out[i].Err = locked
	}
	return out, locked
}

// A held write lock that fails every page while it lasts is a cause outside
// the triggers like a full disk: one warning counting the page's tickets,
// said once a minute with the rounds held back in between, and the rounds
// it failed whole at debug — not a warning every round.
func TestAHeldWriteLockIsWarnedOnceAMinuteWithTheRoundsHeldBack(t *testing.T) {
	t.Parallel()
	buf, d, now := newDiagnostics()
	st := &lockedStore{recordingStore{tickets: []Ticket{ticket("t-1", cursor(t0), t0+5, trigger.FireOnce), ticket("t-2", cursor(t0), t0+5, trigger.FireOnce)}}}
	warned := 0
	var heldBack []any
	for second := range 3 * 60 {
		sum, err := Round(context.Background(), st, RoundConfig{PageSize: 4, Parallel: 1, GraceMs: minute, NewIDs: sameIDs})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Reasons[ReasonLockNotAvailable] != 2 {
			t.Fatalf("second %d: reasons %v; want both tickets lock_not_available", second, sum.Reasons)
		}
		buf.Reset()
		d.Round(context.Background(), sum)
		recs := records(t, buf)
		for _, r := range recs[1:] {
			if r["level"] != "WARN" {
				continue
			}
			warned++
			heldBack = append(heldBack, r["held_back"])
			if r["tickets"] != 2.0 || r["reason"] != "lock_not_available" {
				t.Errorf("second %d: the warning %v; want it to count both tickets, reason lock_not_available", second, r)
			}
		}
		if want := map[bool]string{true: "INFO", false: "DEBUG"}[recs[1]["level"] == "WARN"]; recs[0]["level"] != want {
			t.Errorf("second %d: the round at %s beside a ticket record at %s, want %s", second, recs[0]["level"], recs[1]["level"], want)
		}
		*now = now.Add(time.Second)
	}
	if want := []any{nil, 59.0, 59.0}; warned != 3 || fmt.Sprint(heldBack) != fmt.Sprint(want) {
		t.Fatalf("over 3 minutes of a held write lock, %d warnings held back %v rounds; want 3 with %v", warned, heldBack, want)
	}
}
