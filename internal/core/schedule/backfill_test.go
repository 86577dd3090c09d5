package schedule

import (
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// A refused backfill names each input as the caller's surface spells it
// (the CLI its flags, the API its JSON fields), never another surface's,
// and in plain words alone when the caller gave no names; it names the
// store's time as a time, not raw milliseconds; its reason lets the
// console say it in the page's language.
func TestABackfillRefusalNamesTheInputsAsTheCallersSurfaceSpellsThem(t *testing.T) {
	const now = 1_767_225_600_000 // 2026-01-01T00:00:00Z
	cli := BackfillNames{From: "--from", To: "--to", Max: "--max"}
	api := BackfillNames{From: "fromMs", To: "toMs", Max: "max"}
	for _, c := range []struct {
		r      BackfillRequest
		want   []string
		reason qlerror.Reason
	}{
		{BackfillRequest{FromMs: 2, ToMs: 1, Names: cli}, []string{"start (--from) is after its end (--to)"}, RefusalBackfillReversed},
		{BackfillRequest{FromMs: 2, ToMs: 1, Names: api}, []string{"start (fromMs) is after its end (toMs)"}, RefusalBackfillReversed},
		{BackfillRequest{FromMs: 2, ToMs: 1}, []string{"the window's start is after its end"}, RefusalBackfillReversed},
		{BackfillRequest{FromMs: 1, ToMs: now + 1, Names: cli}, []string{"end (--to) is in the future", "2026-01-01T00:00:00Z"}, RefusalBackfillFuture},
		{BackfillRequest{FromMs: 1, ToMs: now + 1, Names: api}, []string{"end (toMs) is in the future", "2026-01-01T00:00:00Z"}, RefusalBackfillFuture},
		{BackfillRequest{FromMs: now + 1, ToMs: now + 2, Names: cli}, []string{"start (--from) is in the future"}, RefusalBackfillFuture},
		{BackfillRequest{FromMs: 1, ToMs: 2, Max: MaxBackfill + 1, Names: cli}, []string{"cap (--max) 100001 is outside 1–100000"}, RefusalBackfillCap},
		{BackfillRequest{FromMs: 1, ToMs: 2, Max: -1, Names: api}, []string{"cap (max) -1 is outside 1–100000"}, RefusalBackfillCap},
	} {
		_, err := CheckBackfill(c.r, now)
		if !qlerror.Is(err, qlerror.Invalid) || qlerror.ReasonOf(err) != c.reason {
			t.Fatalf("backfill %+v: %v (reason %q), want invalid because %s", c.r, err, qlerror.ReasonOf(err), c.reason)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("backfill %+v: %q lacks %q", c.r, err, w)
			}
		}
		// No other surface's names, nor a name where the caller gave none.
		others := map[BackfillNames][]string{cli: {"(fromMs)", "(toMs)", "(max)"}, api: {"(--"}, {}: {"(--", "Ms)", "(max)"}}[c.r.Names]
		for _, o := range others {
			if strings.Contains(err.Error(), o) {
				t.Errorf("backfill %+v: %q names %q, another surface's", c.r, err, o)
			}
		}
	}
}

// A trigger whose schedule no server has started (no cursor yet) leaves
// every occurrence from its revision's creation on to the clock: a window
// of them takes none, and the plan says from when they are the clock's and
// what to do, in words that name that instant; a window before it takes
// them and says nothing.
func TestABackfillOfOccurrencesNoServerDecidedYetSaysTheyAreTheSchedules(t *testing.T) {
	const created = 1_767_225_600_000 // 2026-01-01T00:00:00Z
	tk := Ticket{Snapshot: Snapshot{TriggerID: "t", TriggerCreatedAtMs: created,
		Cron: trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}}}
	occ, res, err := BackfillPlan(tk, BackfillRequest{FromMs: created, ToMs: created + 10*60_000}, created+time.Hour.Milliseconds())
	if err != nil || len(occ) != 0 || res.NoneTaken != (NoneTaken{Reason: NoneNotDecided, AtMs: created}) {
		t.Fatalf("a window after the creation: %v occurrences, %+v, %v; want none, not decided from %d", occ, res, err, created)
	}
	for _, w := range []string{"from 2026-01-01T00:00:00Z on are not decided yet", "the schedule admits them itself", "end the window before 2026-01-01T00:00:00Z"} {
		if !strings.Contains(res.NoneTaken.Message(), w) {
			t.Errorf("%q lacks %q", res.NoneTaken.Message(), w)
		}
	}
	occ, res, err = BackfillPlan(tk, BackfillRequest{FromMs: created - 10*60_000, ToMs: created + 10*60_000}, created+time.Hour.Milliseconds())
	if err != nil || len(occ) != 10 || res.NoneTaken != (NoneTaken{}) {
		t.Fatalf("a window from before the creation: %d occurrences, %+v, %v; want the 10 before it and no reason", len(occ), res, err)
	}
}

// A window reaching across the trigger's startAt or endAt whose
// occurrences all lie beyond the bound takes none and says so, as a window
// wholly beyond it does; one holding no occurrence of the cron at all, on
// either side, says nothing.
func TestABackfillWindowAcrossABoundWithItsOccurrencesAllBeyondItSaysWhy(t *testing.T) {
	const start = 1_767_225_600_000 // 2026-01-01T00:00:00Z
	hour, minute := time.Hour.Milliseconds(), time.Minute.Milliseconds()
	end := start + 10*hour
	cursor := end + 100*hour
	// At half past every hour, from 00:00 to 10:00: the first occurrence
	// taken is 00:30, the last 09:30.
	tk := Ticket{Snapshot: Snapshot{TriggerID: "t", NextFireAtMs: func() *int64 { c := cursor; return &c }(),
		Cron: trigger.Cron{Expression: "30 * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce, StartAtMs: start, EndAtMs: end}}}
	for _, c := range []struct {
		what     string
		from, to int64
		want     NoneTaken
	}{
		{"from 23:00 to 00:10, across startAt, 23:30 before it", start - hour, start + 10*minute, NoneTaken{Reason: NoneBeforeStart, AtMs: start}},
		{"from 09:50 to 11:00, across endAt, 10:30 after it", end - 10*minute, end + hour, NoneTaken{Reason: NoneAfterEnd, AtMs: end}},
		{"wholly before startAt", start - 2*hour, start - hour, NoneTaken{Reason: NoneBeforeStart, AtMs: start}},
		{"wholly after endAt", end + hour, end + 2*hour, NoneTaken{Reason: NoneAfterEnd, AtMs: end}},
		{"from 23:40 to 00:10, across startAt, no occurrence at all", start - 20*minute, start + 10*minute, NoneTaken{}},
		{"from 09:50 to 10:20, across endAt, no occurrence at all", end - 10*minute, end + 20*minute, NoneTaken{}},
	} {
		occ, res, err := BackfillPlan(tk, BackfillRequest{FromMs: c.from, ToMs: c.to}, cursor+hour)
		if err != nil || len(occ) != 0 || res.NoneTaken != c.want {
			t.Errorf("a window %s: %v occurrences, %+v, %v; want none, %+v", c.what, occ, res.NoneTaken, err, c.want)
		}
	}
	for _, w := range []string{"holds no occurrence from the trigger's startAt 2026-01-01T00:00:00Z on", "move the window to 2026-01-01T00:00:00Z or later"} {
		if m := (NoneTaken{Reason: NoneBeforeStart, AtMs: start}).Message(); !strings.Contains(m, w) {
			t.Errorf("%q lacks %q", m, w)
		}
	}
	for _, w := range []string{"holds no occurrence up to the trigger's endAt 2026-01-01T10:00:00Z", "move the window to 2026-01-01T10:00:00Z or earlier"} {
		if m := (NoneTaken{Reason: NoneAfterEnd, AtMs: end}).Message(); !strings.Contains(m, w) {
			t.Errorf("%q lacks %q", m, w)
		}
	}
}

// Each reason's message names the bound or the instant it stands on and
// what to do about it.
func TestEveryNoneTakenReasonSaysWhatToDo(t *testing.T) {
	const at = 1_767_225_600_000
	for _, r := range NoneReasons {
		m := NoneTaken{Reason: r, AtMs: at}.Message()
		if !strings.Contains(m, "2026-01-01T00:00:00Z") || !strings.Contains(m, "window") {
			t.Errorf("%s: %q names no instant or no change of the window", r, m)
		}
	}
	if m := (NoneTaken{}).Message(); m != "" {
		t.Errorf("no reason says %q", m)
	}
}

// The default backfill window is the last day when that holds at most the
// cap of occurrences, and otherwise the last whole minutes that do: a
// trigger firing every minute or every second gets the longest window of
// at most 1,000 occurrences, one whose bounds or cursor cut it short keeps
// the day, and so does a cron that no longer parses.
func TestTheDefaultBackfillWindowHoldsAtMostTheCap(t *testing.T) {
	const to = 1_767_225_600_000 // 2026-01-01T00:00:00Z, a whole minute
	day, minute := 24*time.Hour.Milliseconds(), time.Minute.Milliseconds()
	status := func(expr string) TriggerStatus {
		return TriggerStatus{Cron: trigger.Cron{Expression: expr, Timezone: "UTC", MisfirePolicy: trigger.FireOnce}}
	}
	started, cursor := status("* * * * *"), status("* * * * *")
	started.Cron.StartAtMs = to - 100*minute
	behind := to - 23*time.Hour.Milliseconds()
	cursor.NextFireAtMs = &behind
	for _, c := range []struct {
		what string
		t    TriggerStatus
		want int64
	}{
		{"hourly", status("0 * * * *"), to - day},
		{"every minute", status("* * * * *"), to - 999*minute},
		{"every second", status("* * * * * *"), to - 16*minute},
		{"every minute from startAt 100 minutes ago", started, to - day},
		{"every minute with its cursor 23 hours back", cursor, to - day},
		{"unparsable", status("not a cron"), to - day},
	} {
		got := DefaultBackfillFrom(c.t, to, day, minute, DefaultBackfillMax)
		if got != c.want {
			t.Errorf("%s: the window starts %d minutes before its end, want %d", c.what, (to-got)/minute, (to-c.want)/minute)
			continue
		}
		tk := Ticket{Snapshot: Snapshot{Cron: c.t.Cron, NextFireAtMs: c.t.NextFireAtMs, TriggerCreatedAtMs: to + 1}}
		if _, res, err := BackfillPlan(tk, BackfillRequest{FromMs: got, ToMs: to, RefuseOverMax: true}, to); c.what != "unparsable" && (err != nil || res.Occurrences == 0) {
			t.Errorf("%s: the default window is refused or empty: %+v, %v", c.what, res, err)
		}
	}
}

// A trigger's stored zone that the zone database of this server's host
// lacks (a server with a newer one published it) refuses what needs its
// occurrences — a backfill, an enable or disable, its project's
// reactivation — naming the zone and what mends it (a zone database that
// has it, by tzdata or ZONEINFO; but for the reactivation, applying the
// trigger again with a known zone), with a reason and the zone and remedy
// for the console to say it in the page's language; a stored cron this
// server does not read otherwise says to republish the trigger. A publish
// over either goes on, owing nothing this host could record: it is the
// way out.
func TestAStoredZoneThisServerDoesNotKnowIsRefusedNamingIt(t *testing.T) {
	const created = 1_767_225_600_000 // 2026-01-01T00:00:00Z
	zone := []string{`trigger t: this server does not know its time zone "Mars/Olympus"`, "install a newer zone database on that host (the tzdata package)",
		"point ZONEINFO at one that has the zone", "or run a newer release of this server"}
	for _, c := range []struct {
		cron                   trigger.Cron
		reason                 qlerror.Reason
		says, saysReactivation []string
	}{
		{trigger.Cron{Expression: "* * * * *", Timezone: "Mars/Olympus", MisfirePolicy: trigger.FireOnce}, RefusalTriggerZoneUnknown,
			append(zone, "or apply the trigger again with a zone this host knows"), append(zone, "its project cannot be made active on this host until then")},
		{trigger.Cron{Expression: "* * * * * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, RefusalCronUnparsable,
			[]string{"trigger t: its cron no longer parses; republish the trigger"}, []string{"trigger t: its cron no longer parses; republish the trigger"}},
	} {
		s := Superseded{Revision: 1, Enabled: true, Cron: c.cron, CreatedAtMs: created}
		_, _, backfill := BackfillPlan(Ticket{Snapshot: Snapshot{TriggerID: "t", TriggerCreatedAtMs: created, Cron: c.cron}},
			BackfillRequest{TriggerID: "t", FromMs: created, ToMs: created + 60_000}, created+time.Hour.Milliseconds())
		_, reactivate := PassedAtReactivation("t", s, created+time.Hour.Milliseconds())
		for what, err := range map[string]error{"backfill": backfill, "enable": CheckStoredCron("t", c.cron), "reactivation": reactivate} {
			if !qlerror.Is(err, qlerror.FailedPrecondition) || qlerror.ReasonOf(err) != c.reason {
				t.Fatalf("%s of a trigger of %+v: %v (reason %q); want failed_precondition because %s", what, c.cron, err, qlerror.ReasonOf(err), c.reason)
			}
			says, remedy := c.says, RemedyReapply
			if what == "reactivation" {
				says, remedy = c.saysReactivation, RemedyZoneData
			}
			if p := qlerror.ParamsOf(err); c.reason == RefusalTriggerZoneUnknown && (p["zone"] != "Mars/Olympus" || p["remedy"] != remedy) {
				t.Errorf("%s: the refusal's params %v do not name the zone and remedy %s", what, p, remedy)
			}
			for _, w := range says {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %q lacks %q", what, err, w)
				}
			}
			if c.reason == RefusalTriggerZoneUnknown && strings.Contains(err.Error(), "give an IANA zone name") {
				t.Errorf("%s: %q tells the user to write another zone, which does not mend a zone valid where it was published", what, err)
			}
		}
		if owed := PassedAtPublish(s, created+time.Hour.Milliseconds()); owed != nil {
			t.Errorf("a publish over a trigger of %+v owes %+v, which this host cannot have worked out", c.cron, owed)
		}
	}
}
