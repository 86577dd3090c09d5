package console

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/view"
)

// The language is ?lang=, then the switch's cookie, then Accept-Language,
// then English.
func TestTheLanguageFollowsTheSwitchThenAcceptLanguage(t *testing.T) {
	for _, c := range []struct {
		query, cookie, accept, want string
	}{
		{"", "", "", "en"},
		{"", "", "zh-CN,zh;q=0.9", "zh"},
		{"", "", "fr-FR, en;q=0.8, zh;q=0.5", "en"},
		{"", "en", "zh-TW", "en"},
		{"zh", "en", "en-US", "zh"},
		{"xx", "", "zh", "zh"},
		{"", "", "en;q=0.1, zh-CN;q=0.9", "zh"},
		{"", "", "zh;q=0.5, en", "en"},
		{"", "", "de, fr;q=0.9", "en"},
	} {
		r := httptest.NewRequest("GET", "/?lang="+c.query, nil)
		if c.cookie != "" {
			r.Header.Set("Cookie", langCookie+"="+c.cookie)
		}
		r.Header.Set("Accept-Language", c.accept)
		if got := lang(r); got != c.want {
			t.Errorf("lang=%q cookie=%q Accept-Language=%q: %s, want %s", c.query, c.cookie, c.accept, got, c.want)
		}
	}
}

// Every time carries its zone; an unknown zone falls back to UTC, named.
func TestTimesAreShownWithTheirZone(t *testing.T) {
	const ms = 1_767_225_600_000 // 2026-01-01 00:00:00 UTC
	for zone, want := range map[string]string{
		"":              "2026-01-01 00:00:00 UTC",
		"Asia/Shanghai": "2026-01-01 08:00:00 UTC+08:00",
		"Nowhere/Else":  "2026-01-01 00:00:00 UTC",
	} {
		if got := when(ms, zone); got != want {
			t.Errorf("when(%d, %q) = %q, want %q", int64(ms), zone, got, want)
		}
	}
}

// A trigger's timeline merges its Runs and the occurrences passed over,
// newest first.
func TestTheTimelineMergesRunsAndPassedOccurrencesNewestFirst(t *testing.T) {
	runs := []run.Run{{ID: "a", ScheduledForMs: 3000}, {ID: "b", ScheduledForMs: 1000}}
	ledger := []schedule.LedgerEntry{{Passed: schedule.Passed{FirstMs: 1500, LastMs: 2000, Count: 2}}}
	got := timeline(ledger, runs, trigger.Cron{}, 1)
	if len(got) != 3 || got[0].Run == nil || got[0].Run.ID != "a" || got[1].Passed == nil || got[2].Run == nil || got[2].Run.ID != "b" {
		t.Fatalf("timeline = %+v, want run a, the passed entry, run b", got)
	}
}

// Both languages name every word the pages use. A singular form (key.one)
// is a language's own: Chinese has none, and each has its plural key.
func TestBothLanguagesHaveEveryMessage(t *testing.T) {
	for key := range messages["en"] {
		if base, ok := strings.CutSuffix(key, singular); ok {
			if messages["en"][base] == "" {
				t.Errorf("English has the singular %q of no message", key)
			}
			continue
		}
		if messages["zh"][key] == "" {
			t.Errorf("Chinese lacks %q", key)
		}
	}
	for key := range messages["zh"] {
		if messages["en"][key] == "" {
			t.Errorf("English lacks %q", key)
		}
	}
}

// Every reason a backfill gives for taking no occurrence has its sentence
// in both languages, naming the instant it stands on (each time it does,
// as a span a line does not break); a result without a reason has the
// general one.
func TestEveryReasonABackfillTookNothingHasASentenceInBothLanguages(t *testing.T) {
	const at = 1_767_225_600_000 // 2026-01-01T00:00:00Z
	for _, r := range schedule.NoneReasons {
		for _, l := range []string{"en", "zh"} {
			if messages[l]["bf.none."+string(r)] == "" {
				t.Errorf("%s has no sentence for a backfill that took nothing because %s", l, r)
			}
			got := backfillNone(l, &schedule.BackfillResult{NoneTaken: schedule.NoneTaken{Reason: r, AtMs: at}}, "UTC")
			if n := strings.Count(string(got), `<span class="time">2026-01-01 00:00:00 UTC</span>`); n != strings.Count(messages[l]["bf.none."+string(r)], "%[1]s") || n == 0 || strings.Contains(string(got), "%!") {
				t.Errorf("%s, %s: %q does not name the instant", l, r, got)
			}
		}
	}
	if got := backfillNone("zh", &schedule.BackfillResult{}, "UTC"); string(got) != escapeText(messages["zh"]["bf.none"]) {
		t.Errorf("no reason: %q, want the general sentence", got)
	}
}

// Every value a page shows by its word — run and attempt states, token
// states and scopes, the reasons an occurrence is passed over, what a
// definitions file changed, a notification's state and its rule's event,
// a trigger's misfire and overlap policies — has one in both languages.
func TestEveryShownValueHasAWordInBothLanguages(t *testing.T) {
	values := map[string][]string{
		"token":   {apitoken.StateActive, apitoken.StateRevoked, apitoken.StateExpired},
		"kind":    {"project", "task", "trigger"},
		"change":  {string(catalog.Created), string(catalog.Updated), string(catalog.Unchanged)},
		"worker":  {"active", "draining", "revoked"},
		"audit":   {"pause", "resume", "enable", "disable"},
		"misfire": {string(trigger.Skip), string(trigger.FireOnce)},
		"overlap": {view.Cron{}.OverlapPolicy(), string(trigger.OverlapSkip), string(trigger.OverlapQueueOne), string(trigger.OverlapCancelPrevious)},
	}
	for _, s := range run.States {
		values["run"] = append(values["run"], string(s))
	}
	for _, s := range run.AttemptStates {
		values["attempt"] = append(values["attempt"], string(s))
	}
	for _, s := range apitoken.Scopes {
		values["scope"] = append(values["scope"], string(s))
	}
	for _, r := range schedule.PassReasons {
		values["passed"] = append(values["passed"], string(r))
	}
	for _, st := range notify.States {
		values["notification"] = append(values["notification"], string(st))
	}
	for _, e := range notify.Events {
		values["event"] = append(values["event"], string(e))
	}
	for kind, vs := range values {
		for _, v := range vs {
			for _, l := range []string{"en", "zh"} {
				if words[l][kind+"."+v] == "" {
					t.Errorf("%s has no word for %s %q", l, kind, v)
				}
			}
		}
	}
	for key := range words["zh"] {
		if words["en"][key] == "" {
			t.Errorf("English lacks the word %q", key)
		}
	}
	if got := word("zh", "run", "from_a_newer_server"); got != "from_a_newer_server" {
		t.Errorf("a value with no word shows as %q, want itself", got)
	}
}

// Every time policy a trigger's page lists has its label and the sentence
// saying what it does in both languages.
func TestEveryTimePolicyHasALabelAndASentenceInBothLanguages(t *testing.T) {
	window := int64(0)
	all := view.Cron{JitterMs: 1, StartAtMs: 1, EndAtMs: 2, CatchUpWindowMs: &window}.Policies()
	if len(all) != 4 {
		t.Fatalf("a cron with every time policy set lists %d of them: %+v", len(all), all)
	}
	for _, p := range all {
		for _, l := range []string{"en", "zh"} {
			if messages[l]["pol."+p.Name] == "" || messages[l]["pol."+p.Name+".help"] == "" {
				t.Errorf("%s has no label or no sentence for the time policy %s", l, p.Name)
			}
		}
	}
}

// The admission lag is measured on the recent Runs of the window only,
// from their jittered due time, and on the clock's alone: the Runs a
// person asked for (run now, re-run, backfill) are left out, as the
// admission lag metric leaves them out.
func TestAdmissionLagIsMeasuredFromTheDueTimeOfRecentRuns(t *testing.T) {
	var runs []run.Run
	for i := range 100 {
		runs = append(runs, run.Run{ScheduledForMs: 10_000, DueAtMs: 10_000, CreatedAtMs: 10_000 + int64(i+1)*10, Origin: run.OriginClock})
	}
	runs = append(runs,
		run.Run{ScheduledForMs: 1_000, CreatedAtMs: 5_000, Origin: run.OriginClock},      // before the window
		run.Run{ScheduledForMs: 9_000, CreatedAtMs: 10_000 + 2, Origin: run.OriginClock}) // no DueAtMs: its scheduled time
	// A person's Runs: due when asked for, or long before (a backfill).
	for _, o := range []run.Origin{run.OriginRunNow, run.OriginRerun, run.OriginBackfill} {
		runs = append(runs, run.Run{ScheduledForMs: 1_000, DueAtMs: 1_000, CreatedAtMs: 3_600_000, Origin: o})
	}
	got := admissionLag(runs, 9_500, 30_000)
	if got == nil || got.N != 101 || got.P50 != 510*time.Millisecond || got.P99 != time.Second {
		t.Fatalf("lag %+v, want 101 runs, p50 510ms, p99 1s", got)
	}
	if admissionLag(nil, 0, 30_000) != nil {
		t.Fatal("a lag without runs")
	}
}

// The overview's admission lag leaves out the clock's catch-ups, Runs
// admitted later than the misfire grace after their due time (after an
// outage, a resume), as qinglong_scheduler_admission_lag_seconds counts
// them apart in qinglong_scheduler_catch_up_lag_seconds: one catch-up of
// an hour's outage among on-time Runs would otherwise be the p99 for a
// day. A Run admitted exactly at the grace is on time, as for the
// scheduler.
func TestTheAdmissionLagLeavesOutCatchUpsAsTheMetricDoes(t *testing.T) {
	var runs []run.Run
	for i := range 99 {
		runs = append(runs, run.Run{ScheduledForMs: 10_000, DueAtMs: 10_000, CreatedAtMs: 10_000 + int64(i+1)*10, Origin: run.OriginClock})
	}
	runs = append(runs,
		run.Run{ScheduledForMs: 20_000, DueAtMs: 20_000, CreatedAtMs: 20_000 + 30_000, Origin: run.OriginClock},    // at the grace: on time
		run.Run{ScheduledForMs: 30_000, DueAtMs: 30_000, CreatedAtMs: 30_000 + 3_600_000, Origin: run.OriginClock}) // an hour's outage
	got := admissionLag(runs, 9_500, 30_000)
	if got == nil || got.N != 100 || got.P99 != 30*time.Second {
		t.Fatalf("lag %+v, want 100 runs (the catch-up left out) with p99 30s", got)
	}
}

// A queued Run's reason names one live worker in the singular in English,
// several in the plural, and Chinese, which has no plural, says both alike.
func TestTheWaitingReasonNamesOneLiveWorkerInTheSingular(t *testing.T) {
	gpu := map[string]string{"gpu": "a100"}
	for _, c := range []struct {
		lang string
		w    run.Waiting
		want string
	}{
		{"en", run.Waiting{Reason: run.WaitNoMatchingWorker, Labels: gpu, Workers: 1}, "and the 1 live worker does not carry them all."},
		{"en", run.Waiting{Reason: run.WaitNoMatchingWorker, Labels: gpu, Workers: 2}, "and none of the 2 live workers carries them all."},
		{"en", run.Waiting{Reason: run.WaitWorkersBusy, Labels: gpu, Workers: 1}, "on the 1 live worker its placement allows (gpu=a100): it already runs"},
		{"en", run.Waiting{Reason: run.WaitWorkersBusy, Labels: gpu, Workers: 2}, "on the 2 live workers its placement allows (gpu=a100): each already runs"},
		{"zh", run.Waiting{Reason: run.WaitNoMatchingWorker, Labels: gpu, Workers: 1}, "但 1 个在线执行节点中没有一个"},
		{"zh", run.Waiting{Reason: run.WaitWorkersBusy, Labels: gpu, Workers: 1}, "允许的 1 个在线执行节点（gpu=a100）"},
	} {
		if got := waitingText(c.lang, &c.w); !strings.Contains(got, c.want) {
			t.Errorf("%s, %s with %d workers: %q, want %q", c.lang, c.w.Reason, c.w.Workers, got, c.want)
		}
	}
}

// The overview's failures merge the newest Runs of each failed state
// (failed, timed_out, lost) into one list, newest first, cut at its size.
func TestRecentFailuresMergeEveryFailedStateNewestFirst(t *testing.T) {
	failed := []run.Run{{ID: "05", State: run.Failed}, {ID: "01", State: run.Failed}}
	timedOut := []run.Run{{ID: "04", State: run.TimedOut}}
	lost := []run.Run{{ID: "06", State: run.Lost}, {ID: "02", State: run.Lost}}
	var ids []string
	for _, r := range newestRuns(4, failed, timedOut, lost) {
		ids = append(ids, r.ID)
	}
	if want := []string{"06", "05", "04", "02"}; !slices.Equal(ids, want) {
		t.Fatalf("merged %v, want %v", ids, want)
	}
	if got := newestRuns(10, nil, timedOut); len(got) != 1 {
		t.Fatalf("merged %v, want the one timed-out Run", got)
	}
	if !slices.Contains(failedStates, run.TimedOut) || !slices.Contains(failedStates, run.Lost) || slices.Contains(failedStates, run.Cancelled) {
		t.Fatalf("failed states %v: want timed_out and lost among them, never cancelled", failedStates)
	}
}

// The overview's next fires are the active triggers whose next
// occurrences are admitted soonest, in the order of their due times: with
// jitter, one nominally later may be admitted first. An active trigger
// whose stored zone the zone database here lacks is not listed at its
// cursor, a time this server will not fire at, but among those the page
// names as not worked out; a paused or disabled one is in neither.
func TestTheOverviewListsNextFiresByDueTime(t *testing.T) {
	at := func(ms int64) *int64 { return &ms }
	utc := trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.Skip}
	mars := trigger.Cron{Expression: "* * * * *", Timezone: "Mars/Olympus", MisfirePolicy: trigger.Skip}
	list := []schedule.TriggerStatus{
		{TriggerID: "late", Enabled: true, Cron: utc, NextFireAtMs: at(100), NextDueAtMs: at(900)},
		{TriggerID: "soon", Enabled: true, Cron: utc, NextFireAtMs: at(200), NextDueAtMs: at(200)},
		{TriggerID: "paused", Enabled: true, Paused: true, Cron: utc, NextFireAtMs: at(50), NextDueAtMs: at(50)},
		{TriggerID: "disabled", Cron: utc, NextFireAtMs: at(60), NextDueAtMs: at(60)},
		{TriggerID: "ended", Enabled: true, Cron: utc, Ended: true},
		{TriggerID: "mars", Enabled: true, Cron: mars, NextFireAtMs: at(10), NextDueAtMs: at(10)},
		{TriggerID: "mars-paused", Enabled: true, Paused: true, Cron: mars, NextFireAtMs: at(10), NextDueAtMs: at(10)},
	}
	idsOf := func(list []schedule.TriggerStatus) []string {
		var ids []string
		for _, tr := range list {
			ids = append(ids, tr.TriggerID)
		}
		return ids
	}
	next, unknown := nextFiresOf(list)
	if want := []string{"soon", "late"}; !slices.Equal(idsOf(next), want) {
		t.Fatalf("next fires %v, want %v", idsOf(next), want)
	}
	if want := []string{"mars"}; !slices.Equal(idsOf(unknown), want) {
		t.Fatalf("triggers whose next fires are not worked out %v, want %v", idsOf(unknown), want)
	}
}

// A notification's rule reads as its event, a streak as its length, a
// skipped occurrence with its reason and a finished Run with how it ended,
// in the page's language.
func TestANotificationsRuleNamesItsStreakAndItsSkipReason(t *testing.T) {
	for _, c := range []struct {
		lang string
		m    notify.Message
		want string
	}{
		{"en", notify.Message{Event: notify.OnTimedOut}, "timed out"},
		{"zh", notify.Message{Event: notify.OnFailed}, "失败"},
		{"en", notify.Message{Event: notify.OnConsecutiveFailures, Payload: notify.Payload{ConsecutiveFailures: 3}}, "3 failures in a row"},
		{"zh", notify.Message{Event: notify.OnConsecutiveFailures, Payload: notify.Payload{ConsecutiveFailures: 3}}, "连续 3 次失败"},
		{"en", notify.Message{Event: notify.OnSkipped, Payload: notify.Payload{Reason: "misfire"}}, "occurrences passed over — later than the grace period (misfire: skip)"},
		{"zh", notify.Message{Event: notify.OnSkipped, Payload: notify.Payload{Reason: "paused"}}, "跳过发生时刻 — 已暂停"},
		{"en", notify.Message{Event: notify.OnSucceeded, Payload: notify.Payload{RunState: "succeeded"}}, "succeeded"},
		{"zh", notify.Message{Event: notify.OnSucceeded, Payload: notify.Payload{RunState: "succeeded"}}, "成功"},
		{"en", notify.Message{Event: notify.OnFinished, Payload: notify.Payload{RunState: "timed_out"}}, "finished — timed out"},
		{"zh", notify.Message{Event: notify.OnFinished, Payload: notify.Payload{RunState: "succeeded"}}, "运行结束 — 成功"},
	} {
		if got := ruleText(c.lang, c.m); got != c.want {
			t.Errorf("%s, %s %+v: %q, want %q", c.lang, c.m.Event, c.m.Payload, got, c.want)
		}
	}
}

// A project chosen by name that sorts past the projects a picker offers is
// offered too, in its place, so the picker shows it chosen and a filter
// sent again keeps it; one offered already is not offered twice.
func TestAPickerOffersTheChosenProjectPastItsCap(t *testing.T) {
	offered := []catalog.ProjectName{{Name: "alpha"}, {Name: "gamma", Title: "伽马"}}
	for chosen, want := range map[string]string{"zeta": "alpha,gamma,zeta", "beta": "alpha,beta,gamma", "gamma": "alpha,gamma", "": "alpha,gamma"} {
		if got := strings.Join(catalog.Names(withChosen(offered, catalog.ProjectName{Name: chosen})), ","); got != want {
			t.Errorf("the choices with %q chosen: %s, want %s", chosen, got, want)
		}
	}
	if strings.Join(catalog.Names(offered), ",") != "alpha,gamma" {
		t.Errorf("withChosen changed the choices it was given: %v", offered)
	}
}

// A queued Run's page on a single-node server says one case in English
// and Chinese, with both numbers: at the server's --concurrency it waits
// its turn; under it the server starts it in a moment.
func TestTheRunPageSaysEitherThatARunWaitsItsTurnOrThatTheServerStartsItInAMoment(t *testing.T) {
	for _, c := range []struct {
		lang string
		w    run.Waiting
		want string
	}{
		{"en", run.Waiting{Reason: run.WaitServerBusy, Running: 2, Concurrency: 2}, "It waits its turn: 2 of 2 commands running, as many as the server's --concurrency allows;"},
		{"zh", run.Waiting{Reason: run.WaitServerBusy, Running: 2, Concurrency: 2}, "它在排队等候：2/2 个命令正在运行"},
		{"en", run.Waiting{Reason: run.WaitServerStarting, Running: 1, Concurrency: 3}, "The server starts it in a moment (1 of 3 running)."},
		{"zh", run.Waiting{Reason: run.WaitServerStarting, Running: 1, Concurrency: 3}, "服务器稍后即启动它（1/3 个正在运行）。"},
	} {
		got := waitingText(c.lang, &c.w)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s, %s with %d of %d: %q, want %q", c.lang, c.w.Reason, c.w.Running, c.w.Concurrency, got, c.want)
		}
		if other := map[run.WaitReason]string{run.WaitServerBusy: "moment", run.WaitServerStarting: "turn"}[c.w.Reason]; c.lang == "en" && strings.Contains(got, other) {
			t.Errorf("%s, %s: %q says the other case too", c.lang, c.w.Reason, got)
		}
	}
}

// A queued Run of a project at its maxRunning says in English and Chinese
// that it waits for its project, with the project, both numbers and the
// triggers holding its share.
func TestTheRunPageSaysARunWaitsForItsProjectAtItsMaxRunning(t *testing.T) {
	w := run.Waiting{Reason: run.WaitProjectBusy, Project: "delta", Running: 3, MaxRunning: 3, Holders: []run.SlotHolder{{Project: "delta", Trigger: "runaway", Runs: 3}}}
	for lang, want := range map[string][]string{
		"en": {"It waits for its project: delta runs 3 of its maxRunning 3 runs at once", "other projects' runs take the free slots meanwhile", "The slots are held by Runs of delta/runaway (3)."},
		"zh": {"它在等待所属项目：项目 delta 正在运行 3 个运行，已达其 maxRunning 上限 3", "空出的槽位先给其他项目的运行", "占用这些槽位的是以下触发器的运行：delta/runaway (3)。"},
	} {
		got := waitingText(lang, &w)
		for _, part := range want {
			if !strings.Contains(got, part) {
				t.Errorf("%s: %q; want %q", lang, got, part)
			}
		}
	}
}

// A trigger's timeline says which Run its collapsed occurrences went into
// by the trigger's own misfire policy, in both languages: under skip the
// oldest occurrence still inside the grace, not the oldest missed one.
func TestTheTimelineSaysCollapsedOccurrencesByTheTriggersOwnMisfirePolicy(t *testing.T) {
	collapsed := []schedule.LedgerEntry{{Passed: schedule.Passed{Reason: schedule.PassCollapsed, FirstMs: 1000, LastMs: 2000, Count: 2}, TriggerRevision: 3}}
	for _, c := range []struct {
		cron     trigger.Cron
		revision int64
		en, zh   string
	}{
		{trigger.Cron{MisfirePolicy: trigger.Skip}, 3, "oldest one still inside the grace period (misfire: skip)", "仍在宽限期内最早的那次运行（misfire: skip）"},
		{trigger.Cron{MisfirePolicy: trigger.FireOnce}, 3, "oldest missed one (misfire: fire_once)", "最早错过的那次运行（misfire: fire_once）"},
		{trigger.Cron{MisfirePolicy: trigger.FireOnce, HasCatchUpWindow: true}, 3, "inside the catch-up window (misfire: fire_once)", "补跑窗口内最早错过的那次运行（misfire: fire_once）"},
		// An older revision's policy is not known: no policy is named.
		{trigger.Cron{MisfirePolicy: trigger.Skip}, 4, "the one run its misfire policy admitted", "错过策略为它们放行的那一次运行"},
	} {
		got := timeline(collapsed, nil, c.cron, c.revision)
		if len(got) != 1 {
			t.Fatalf("timeline = %+v, want the one entry", got)
		}
		en, zh := word("en", "passed", got[0].Why), word("zh", "passed", got[0].Why)
		if !strings.Contains(en, c.en) || !strings.Contains(zh, c.zh) {
			t.Errorf("%+v revision %d: %q / %q, want %q / %q", c.cron, c.revision, en, zh, c.en, c.zh)
		}
		if c.cron.MisfirePolicy == trigger.Skip && (strings.Contains(en, "fire_once") || strings.Contains(zh, "fire_once")) {
			t.Errorf("a skip trigger's collapse names fire_once: %q / %q", en, zh)
		}
	}
}
