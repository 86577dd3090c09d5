package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// ledgerCases are the guarantees of the occurrence ledger and of pause and
// resume: every occurrence a committed decision passes over is recorded,
// with its reason and exact count, in the decision's own transaction, and
// nothing of a decision that did not commit.
func ledgerCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"AMisfireSkipIsRecordedWithItsExactCount":                      testLedgerMisfire,
		"AFireOnceCatchUpRecordsTheCollapsedOccurrences":               testLedgerCollapsed,
		"ARacedDecisionRecordsNothing":                                 testLedgerRaced,
		"APausedTriggerIsNotTakenAndResumeRecordsItsPause":             testPauseResume,
		"PauseAndResumeAreAuditedNoOpsSaySoUnknownIsNotFound":          testPauseAudit,
		"ATicketTakenBeforeAPauseIsRacedAndRecordsNothing":             testPauseRacesTicket,
		"TheLedgerOfATriggerIsReadNewestFirstWithItsRevision":          testLedgerRevision,
		"TheLedgerKeepsTheNewestEntriesAndSumsOlderOnesPerReason":      testLedgerCompaction,
		"APauseSpanWrittenWithoutAVersionBumpFailsClosed":              testPauseSpanDrift,
		"APauseNoteOverItsLimitIsInvalidAndWritesNothing":              testPauseNoteLimit,
		"TheAuditTrailIsReadNewestFirstAndBounded":                     testAuditTrailRead,
		"ARepauseShowsItsOwnTimeAndTheLedgerCoversBothPauses":          testARepauseShowsItsOwnTime,
		"TheLedgerSaysHowManyOfAnEntrysOccurrencesWereBackfilledSince": testLedgerSaysWhatABackfillGaveRunsLater,
	}
}

// ledger reads a trigger's ledger, newest first.
func ledger(t *testing.T, f Fixture, triggerID string) []schedule.LedgerEntry {
	t.Helper()
	d, err := f.Detail.TriggerDetail(t.Context(), triggerID, 100)
	if err != nil {
		t.Fatalf("detail of %s: %v", triggerID, err)
	}
	return d.Ledger
}

// requireLedger requires the ledger, newest first, to be exactly the
// entries of the given committed decisions (oldest decision first).
func requireLedger(t *testing.T, f Fixture, triggerID string, revision int64, decisions ...schedule.Decision) {
	t.Helper()
	var want []schedule.Passed
	for _, d := range decisions {
		want = append(want, d.Passed...)
	}
	slices.Reverse(want)
	got := ledger(t, f, triggerID)
	if len(got) != len(want) {
		t.Fatalf("ledger of %s has %d entries %+v, want %d %+v", triggerID, len(got), got, len(want), want)
	}
	for i, e := range got {
		if e.Passed != want[i] || e.TriggerRevision != revision || e.Compacted || e.TriggerID != triggerID || e.RecordedAtMs <= 0 {
			t.Fatalf("ledger entry %d of %s is %+v, want %+v at revision %d", i, triggerID, e, want[i], revision)
		}
	}
}

// hourlyAt counts the instants at minute m of every UTC hour in [from, to]
// by plain calendar arithmetic, independently of the cron package.
func hourlyAt(m int, from, to int64) int64 {
	h := time.UnixMilli(from).UTC().Truncate(time.Hour).Add(time.Duration(m) * time.Minute)
	if h.UnixMilli() < from {
		h = h.Add(time.Hour)
	}
	var n int64
	for ; h.UnixMilli() <= to; h = h.Add(time.Hour) {
		n++
	}
	return n
}

// seconds counts the whole seconds in [from, to].
func seconds(from, to int64) int64 {
	first, last := (from+999)/1000, to/1000
	return max(0, last-first+1)
}

func quietMinute(c trigger.Cron) int {
	var m int
	for _, r := range c.Expression {
		if r == ' ' {
			break
		}
		m = m*10 + int(r-'0')
	}
	return m
}

func testLedgerMisfire(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	c.MisfirePolicy = trigger.Skip
	d := newDefs(t, f, "alpha", c)
	initialise(t, f)
	const lateMs = 6 * 60 * 60_000 // six hours
	makeDue(t, f, d.Trigger.TriggerID, lateMs)
	tk := takeOne(t, f)
	p := commitParams(t, tk)
	if res := commit(t, f, p); res.Outcome != schedule.Skipped {
		t.Fatalf("commit: %s (%s), want skipped", res.Outcome, res.Reason)
	}
	want := hourlyAt(quietMinute(c), *tk.NextFireAtMs, tk.ObservedAtMs)
	if len(p.Decision.Passed) != 1 || p.Decision.Passed[0].Reason != schedule.PassMisfire || p.Decision.Passed[0].Count != want {
		t.Fatalf("the skip passed over %+v; want one misfire entry of %d occurrences", p.Decision.Passed, want)
	}
	requireLedger(t, f, d.Trigger.TriggerID, d.Trigger.Revision, p.Decision)
}

func testLedgerCollapsed(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	d := newDefs(t, f, "alpha", c)
	initialise(t, f)
	const backlogMs = 24 * 60 * 60_000
	makeDue(t, f, d.Trigger.TriggerID, backlogMs)
	tk := takeOne(t, f)
	p := commitParams(t, tk)
	if res := commit(t, f, p); res.Outcome != schedule.Admitted {
		t.Fatalf("commit: %s (%s), want admitted", res.Outcome, res.Reason)
	}
	want := hourlyAt(quietMinute(c), *tk.NextFireAtMs+1, tk.ObservedAtMs)
	if len(p.Decision.Passed) != 1 || p.Decision.Passed[0].Reason != schedule.PassCollapsed || p.Decision.Passed[0].Count != want {
		t.Fatalf("the catch-up passed over %+v; want one collapsed entry of %d occurrences", p.Decision.Passed, want)
	}
	requireLedger(t, f, d.Trigger.TriggerID, d.Trigger.Revision, p.Decision)
	if got := counts(t, f, d.Trigger.TriggerID); got.Runs != 1 {
		t.Fatalf("%d runs, want the one catch-up run", got.Runs)
	}
}

func testLedgerRaced(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	c.MisfirePolicy = trigger.Skip
	d := newDefs(t, f, "alpha", c)
	initialise(t, f)
	makeDue(t, f, d.Trigger.TriggerID, 3*60*60_000)
	tk := takeOne(t, f)
	p := commitParams(t, tk)
	if len(p.Decision.Passed) == 0 {
		t.Fatal("a skip three hours late passed nothing over")
	}
	// The row moves behind the ticket's back: its decision must record
	// nothing.
	makeDue(t, f, d.Trigger.TriggerID, 4*60*60_000)
	if res := commit(t, f, p); res.Outcome != schedule.Raced {
		t.Fatalf("commit of a stale ticket: %s (%s), want raced", res.Outcome, res.Reason)
	}
	requireLedger(t, f, d.Trigger.TriggerID, d.Trigger.Revision)
}

func testLedgerRevision(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	c.MisfirePolicy = trigger.Skip
	d := newDefs(t, f, "alpha", c)
	initialise(t, f)
	var done []schedule.Decision
	for _, late := range []int64{2, 5} {
		makeDue(t, f, d.Trigger.TriggerID, late*60*60_000)
		p := commitParams(t, takeOne(t, f))
		if res := commit(t, f, p); res.Outcome != schedule.Skipped {
			t.Fatalf("commit: %s (%s), want skipped", res.Outcome, res.Reason)
		}
		done = append(done, p.Decision)
	}
	requireLedger(t, f, d.Trigger.TriggerID, d.Trigger.Revision, done...)
}

func pause(t *testing.T, f Fixture, triggerID string, on bool, note string) schedule.PauseResult {
	t.Helper()
	res, err := f.Pauser.TriggerPause(t.Context(), schedule.PauseRequest{TriggerID: triggerID, Pause: on, Note: note, Actor: "conformance"})
	if err != nil {
		t.Fatalf("pause=%v %s: %v", on, triggerID, err)
	}
	return res
}

func testPauseResume(t *testing.T, f Fixture) {
	c := trigger.Cron{Expression: "* * * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}
	d := newDefs(t, f, "alpha", c)
	first := commitParams(t, takeOne(t, f))
	if res := commit(t, f, first); res.Outcome != schedule.Initialized && res.Outcome != schedule.Admitted {
		t.Fatalf("first decision: %s (%s)", res.Outcome, res.Reason)
	}
	paused := pause(t, f, d.Trigger.TriggerID, true, "deploying v2")
	if !paused.Changed || !paused.Paused || paused.Note != "deploying v2" {
		t.Fatalf("pause gave %+v", paused)
	}
	f.Elapse(2200 * time.Millisecond)
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("a paused trigger was taken (%d tickets)", len(tks))
	}
	det, err := f.Detail.TriggerDetail(t.Context(), d.Trigger.TriggerID, 10)
	if err != nil || !det.Paused || det.PauseNote != "deploying v2" || det.PausedAtMs == nil || *det.PausedAtMs != paused.AtMs {
		t.Fatalf("detail of the paused trigger %+v (%v); want paused since %d with its note", det, err, paused.AtMs)
	}
	if !listedPaused(t, f, d.Trigger.TriggerID) {
		t.Fatal("the trigger listing does not say the paused trigger is paused")
	}
	resumed := pause(t, f, d.Trigger.TriggerID, false, "")
	if !resumed.Changed || resumed.Paused || resumed.AtMs < paused.AtMs+2000 || resumed.Note != "" {
		t.Fatalf("resume gave %+v after a pause at %d; want it resumed with no pause note (none is in force)", resumed, paused.AtMs)
	}
	if again := pause(t, f, d.Trigger.TriggerID, false, ""); again.Changed || again.Paused || again.Note != "" {
		t.Fatalf("a second resume gave %+v; want nothing changed and no pause note", again)
	}
	if listedPaused(t, f, d.Trigger.TriggerID) {
		t.Fatal("the trigger listing still says the resumed trigger is paused")
	}
	if det, err := f.Detail.TriggerDetail(t.Context(), d.Trigger.TriggerID, 10); err != nil || det.Paused || det.PauseNote != "" || det.PausedAtMs != nil {
		t.Fatalf("detail of the resumed trigger %+v (%v); want it not paused, with no pause note or time (none is in force)", det, err)
	}
	tk := takeOne(t, f)
	if tk.Pause == nil || tk.Pause.FromMs != paused.AtMs || tk.Pause.UntilMs != resumed.AtMs {
		t.Fatalf("the ticket's pause span is %+v, want [%d, %d)", tk.Pause, paused.AtMs, resumed.AtMs)
	}
	p := commitParams(t, tk)
	if res := commit(t, f, p); res.Outcome != schedule.Admitted {
		t.Fatalf("decision after resume: %s (%s); fire_once within grace admits the oldest missed occurrence", res.Outcome, res.Reason)
	}
	var inPause int64
	for _, e := range p.Decision.Passed {
		if e.Reason == schedule.PassPaused {
			if e.FirstMs < paused.AtMs || e.LastMs >= resumed.AtMs {
				t.Fatalf("paused entry %+v lies outside the pause [%d, %d)", e, paused.AtMs, resumed.AtMs)
			}
			inPause += e.Count
		}
	}
	if want := seconds(max(p.Decision.DueMs+1, paused.AtMs), resumed.AtMs-1); inPause != want || want < 1 {
		t.Fatalf("recorded %d occurrences as paused, want %d: %+v", inPause, want, p.Decision.Passed)
	}
	requireLedger(t, f, d.Trigger.TriggerID, d.Trigger.Revision, first.Decision, p.Decision)
}

// listedPaused is whether the trigger listing says the trigger is paused.
func listedPaused(t *testing.T, f Fixture, triggerID string) bool {
	t.Helper()
	list, _, err := f.Status.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range list {
		if x.TriggerID == triggerID {
			return x.Paused
		}
	}
	t.Fatalf("the trigger listing lacks trigger %s", triggerID)
	return false
}

func testPauseAudit(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	before := row(t, f, d.Trigger.TriggerID)
	if res := pause(t, f, d.Trigger.TriggerID, false, ""); res.Changed || res.Paused {
		t.Fatalf("resuming a running trigger gave %+v, want an unchanged no-op", res)
	}
	pause(t, f, d.Trigger.TriggerID, true, "night freeze")
	if res := pause(t, f, d.Trigger.TriggerID, true, "again"); res.Changed || !res.Paused || res.Note != "night freeze" {
		t.Fatalf("pausing a paused trigger gave %+v, want an unchanged no-op keeping the first note", res)
	}
	pause(t, f, d.Trigger.TriggerID, false, "")
	if after := row(t, f, d.Trigger.TriggerID); after.StateVersion != before.StateVersion+2 || !sameInt(after.NextFireAtMs, before.NextFireAtMs) {
		t.Fatalf("row %+v -> %+v; want the state version bumped once per change and the cursor kept", before, after)
	}
	audits, err := f.Audits(t.Context(), d.Trigger.TriggerID)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"pause conformance night freeze", "resume conformance "}; !slices.Equal(audits, want) {
		t.Fatalf("audit %q, want %q", audits, want)
	}
	_, err = f.Pauser.TriggerPause(t.Context(), schedule.PauseRequest{TriggerID: ids.New(), Pause: true, Actor: "conformance"})
	if !qlerror.Is(err, qlerror.NotFound) || !strings.Contains(err.Error(), "ql triggers list") {
		t.Fatalf("pausing an unknown trigger: %v, want NotFound saying where to look", err)
	}
}

func testPauseNoteLimit(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	before := row(t, f, d.Trigger.TriggerID)
	long := strings.Repeat("字", schedule.MaxPauseNote+1)
	_, err := f.Pauser.TriggerPause(t.Context(), schedule.PauseRequest{TriggerID: d.Trigger.TriggerID, Pause: true, Note: long, Actor: "conformance"})
	if !qlerror.Is(err, qlerror.Invalid) || !strings.Contains(err.Error(), "at most 1000") {
		t.Fatalf("pausing with a note of %d characters: %v, want Invalid naming the limit", schedule.MaxPauseNote+1, err)
	}
	if after := row(t, f, d.Trigger.TriggerID); after.StateVersion != before.StateVersion {
		t.Fatalf("a refused pause changed the row %+v -> %+v", before, after)
	}
	if res := pause(t, f, d.Trigger.TriggerID, true, long[:len(long)-len("字")]); !res.Changed || !res.Paused {
		t.Fatalf("pausing with a note of exactly %d characters gave %+v, want paused", schedule.MaxPauseNote, res)
	}
	audits, err := f.Audits(t.Context(), d.Trigger.TriggerID)
	if err != nil {
		t.Fatal(err)
	}
	if len(audits) != 1 {
		t.Fatalf("audit %q, want only the accepted pause", audits)
	}
}

func testPauseRacesTicket(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	makeDue(t, f, d.Trigger.TriggerID, 3*60*60_000)
	p := commitParams(t, takeOne(t, f))
	pause(t, f, d.Trigger.TriggerID, true, "")
	res := commit(t, f, p)
	if res.Outcome != schedule.Raced || res.Reason != schedule.ReasonStateVersionChanged && res.Reason != schedule.ReasonClaimLost {
		t.Fatalf("a ticket taken before the pause: %s (%s), want raced", res.Outcome, res.Reason)
	}
	if c := counts(t, f, d.Trigger.TriggerID); c != (Counts{}) {
		t.Fatalf("a ticket taken before the pause wrote %+v", c)
	}
	requireLedger(t, f, d.Trigger.TriggerID, d.Trigger.Revision)
}

func testPageRacedRowRecordsNothing(t *testing.T, f Fixture) {
	all := make([]defs, 3)
	for i := range all {
		c := quietCron(t, f)
		c.MisfirePolicy = trigger.Skip
		all[i] = newDefs(t, f, "p"+string(rune('a'+i)), c)
	}
	initialise(t, f)
	for _, d := range all {
		makeDue(t, f, d.Trigger.TriggerID, 5*60*60_000)
	}
	tks := take(t, f, schedule.MaxPageSize)
	if len(tks) != len(all) {
		t.Fatalf("took %d rows, want %d", len(tks), len(all))
	}
	ps := make([]schedule.CommitParams, len(tks))
	for i, tk := range tks {
		ps[i] = commitParams(t, tk)
	}
	racer := tks[1].TriggerID
	makeDue(t, f, racer, 6*60*60_000)
	rs := commitPage(t, f, ps)
	for i, res := range rs {
		if i == 1 {
			requireResult(t, "the moved row", res, schedule.ReasonStateVersionChanged)
			requireLedger(t, f, racer, 1)
			continue
		}
		if res.Outcome != schedule.Skipped {
			t.Fatalf("row %d: %s (%s), want skipped", i, res.Outcome, res.Reason)
		}
		requireLedger(t, f, ps[i].Ticket.TriggerID, ps[i].Ticket.TriggerRevision, ps[i].Decision)
	}
}

func testLedgerCompaction(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	c.MisfirePolicy = trigger.Skip
	d := newDefs(t, f, "alpha", c)
	initialise(t, f)
	const seeded = 2*schedule.LedgerKeep - 1
	if err := f.Tamper.SeedLedger(t.Context(), d.Trigger.TriggerID, seeded); err != nil {
		t.Fatalf("seed the ledger: %v", err)
	}
	makeDue(t, f, d.Trigger.TriggerID, 3*60*60_000)
	p := commitParams(t, takeOne(t, f))
	if res := commit(t, f, p); res.Outcome != schedule.Skipped || len(p.Decision.Passed) != 1 {
		t.Fatalf("commit: %s (%s) passing over %+v; want one skipped entry", res.Outcome, res.Reason, p.Decision.Passed)
	}
	det, err := f.Detail.TriggerDetail(t.Context(), d.Trigger.TriggerID, 2*schedule.LedgerKeep)
	if err != nil {
		t.Fatal(err)
	}
	var full int
	totals := map[schedule.PassReason]schedule.LedgerEntry{}
	for _, e := range det.Ledger {
		if e.Compacted {
			totals[e.Reason] = e
			continue
		}
		full++
	}
	// Entry 2*LedgerKeep, the decision's own, folded entries 1..LedgerKeep:
	// half of them misfires at the odd seconds, half collapsed at the even.
	half := int64(schedule.LedgerKeep / 2)
	mis, col := totals[schedule.PassMisfire], totals[schedule.PassCollapsed]
	if full != schedule.LedgerKeep || len(totals) != 2 ||
		mis.Count != half || mis.FirstMs != 1_000 || mis.LastMs != int64(schedule.LedgerKeep-1)*1_000 ||
		col.Count != half || col.FirstMs != 2_000 || col.LastMs != int64(schedule.LedgerKeep)*1_000 {
		t.Fatalf("after %d entries: %d in full and totals %+v; want the newest %d in full and the older %d summed per reason",
			seeded+1, full, totals, schedule.LedgerKeep, schedule.LedgerKeep)
	}
	if det.Ledger[0].Passed != p.Decision.Passed[0] {
		t.Fatalf("newest entry %+v, want the decision's %+v", det.Ledger[0], p.Decision.Passed[0])
	}
}

func testPauseSpanDrift(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	makeDue(t, f, d.Trigger.TriggerID, 3*60*60_000)
	p := commitParams(t, takeOne(t, f))
	if p.Ticket.Pause != nil {
		t.Fatalf("a never paused trigger's ticket has a pause span %+v", p.Ticket.Pause)
	}
	now, err := f.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Tamper.SetPauseSpan(t.Context(), d.Trigger.TriggerID, now-2*60*60_000, now-60*60_000); err != nil {
		t.Fatal(err)
	}
	requireResult(t, "a pause span written behind the version", commit(t, f, p), schedule.ReasonCursorDrift)
	if c := counts(t, f, d.Trigger.TriggerID); c != (Counts{}) {
		t.Fatalf("a refused commit wrote %+v", c)
	}
	requireLedger(t, f, d.Trigger.TriggerID, d.Trigger.Revision)
}

// testAuditTrailRead pauses and resumes a trigger more often than a detail
// shows: the detail carries the newest records, newest first (the order of
// the changes even within one millisecond), with who, the note and the
// store's time of the change, and one more that says older ones exist;
// another trigger's records never mix in.
func testAuditTrailRead(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	other := initialisedDefs(t, f, "beta")
	det, err := f.Detail.TriggerDetail(t.Context(), d.Trigger.TriggerID, 10)
	if err != nil || len(det.Audit) != 0 || det.AuditUnreadable {
		t.Fatalf("detail of a trigger never paused: audit %+v unreadable %t (%v); want an empty, readable trail", det.Audit, det.AuditUnreadable, err)
	}
	pause(t, f, other.Trigger.TriggerID, true, "the other one")
	// want holds the changes oldest first; a record's time is the store's
	// clock read in the change's transaction, so it lies between the time
	// the change reported and that of the next one.
	var want []schedule.AuditRecord
	for i := range schedule.AuditShown/2 + 1 {
		note := fmt.Sprintf("freeze %d", i)
		p := pause(t, f, d.Trigger.TriggerID, true, note)
		want = append(want, schedule.AuditRecord{Action: "pause", Actor: "conformance", Note: note, AtMs: p.AtMs})
		r := pause(t, f, d.Trigger.TriggerID, false, "")
		want = append(want, schedule.AuditRecord{Action: "resume", Actor: "conformance", AtMs: r.AtMs})
	}
	det, err = f.Detail.TriggerDetail(t.Context(), d.Trigger.TriggerID, 10)
	if err != nil || det.AuditUnreadable {
		t.Fatalf("detail after %d changes: unreadable %t (%v)", len(want), det.AuditUnreadable, err)
	}
	if len(det.Audit) != schedule.AuditShown+1 {
		t.Fatalf("the detail carries %d audit records %+v; want the newest %d and one more saying older ones exist", len(det.Audit), det.Audit, schedule.AuditShown)
	}
	for i, got := range det.Audit {
		k := len(want) - 1 - i
		w, upper := want[k], det.NowMs
		if k+1 < len(want) {
			upper = want[k+1].AtMs
		}
		if got.Action != w.Action || got.Actor != w.Actor || got.Note != w.Note || got.AtMs < w.AtMs || got.AtMs > upper {
			t.Fatalf("audit record %d (newest first) is %+v; want %+v at %d..%d\nall: %+v", i, got, w, w.AtMs, upper, det.Audit)
		}
	}
}
