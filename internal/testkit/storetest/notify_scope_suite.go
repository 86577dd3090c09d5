package storetest

import (
	"fmt"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// A succeeded Run notifies the succeeded and finished rules, quoting the
// end of its output for a channel that asks for it (a check-in script's
// result); a failed one only the finished rule of those.
func testSucceededRunsNotify(t *testing.T, f Fixture) {
	quoting := notify.Channel{Name: "phone", Kind: notify.Bark, URLSecret: "bark_url", Output: 2}
	d := newDefs(t, f, "checkin", quietCron(t, f))
	saveNotifications(t, f, &d, notify.Spec{Channels: []notify.Channel{hook, quoting},
		Rules: []notify.Rule{{On: notify.OnSucceeded, Channel: quoting.Name}, {On: notify.OnFinished, Channel: hook.Name}}})
	initialise(t, f)

	ok := admitNow(t, f, d.Trigger.TriggerID, runFinishedLateMs)
	if got, err := f.FinishWithOutput(t.Context(), ok, run.AttemptSucceeded, []byte("signing in\n签到成功, 获得 10 积分\n")); err != nil || got != run.Succeeded {
		t.Fatalf("finish run %s succeeded with output: the Run ended %q (%v)", ok, got, err)
	}
	failed := runFinished(t, f, d.Trigger.TriggerID, 1, run.AttemptFailed)

	got := map[string]notify.Payload{}
	for _, m := range outbox(t, f) {
		got[fmt.Sprintf("%s %s %s", m.RunID, m.Event, m.Channel.Name)] = m.Payload
	}
	if len(got) != 3 {
		t.Fatalf("notifications by Run, event and channel: %v; want the succeeded Run's succeeded and finished ones and the failed Run's finished one", got)
	}
	p, found := got[ok+" succeeded phone"]
	if !found || p.RunState != "succeeded" || p.Task != "job" || p.ExitCode == nil || *p.ExitCode != 0 ||
		p.Output != "signing in\n签到成功, 获得 10 积分" {
		t.Fatalf("the succeeded rule's notification %+v (found %t); want the Run's success, exit code 0 and the output's last two lines", p, found)
	}
	if p, found := got[ok+" finished ops"]; !found || p.RunState != "succeeded" || p.Output != "" {
		t.Fatalf("the finished rule's notification of the success: %+v (found %t); want it, without output (its channel asks for none)", p, found)
	}
	if p, found := got[failed+" finished ops"]; !found || p.RunState != "failed" {
		t.Fatalf("the finished rule's notification of the failure: %+v (found %t)", p, found)
	}
}

// scopedDefs is a project of two tasks, job and other, with a trigger
// each, tick and tock, and the rules given.
type scopedDefs struct {
	defs
	Other trigger.Revision
}

func newScopedDefs(t *testing.T, f Fixture, name string, c trigger.Cron, rules ...notify.Rule) scopedDefs {
	t.Helper()
	d := newDefs(t, f, name, c)
	other := publishTask(t, f, d.Project.ID, ids.New(), 0, commandSpec("other", true))
	tock := publishTrigger(t, f, d.Project.ID, ids.New(), other, 0, trigger.Spec{Name: "tock", Enabled: true, Cron: c})
	saveNotifications(t, f, &d, notify.Spec{Channels: []notify.Channel{hook, {Name: "chat", Kind: notify.Slack, URLSecret: "slack_url"}}, Rules: rules})
	initialise(t, f)
	return scopedDefs{defs: d, Other: tock}
}

// byChannel is the channels of the outbox rows of one Run (or, for "",
// the skipped rows of the project), with how many each got.
func byChannel(t *testing.T, f Fixture, projectID, runID string, event notify.Event) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, m := range outbox(t, f) {
		if m.ProjectID == projectID && m.RunID == runID && m.Event == event {
			out[m.Channel.Name]++
		}
	}
	return out
}

// A rule naming tasks or triggers is told only of the Runs and the ledger
// entries of those, failed and skipped alike, the latter through the
// one-decision commit and a page (written in SQL on PostgreSQL).
func testScopedRules(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	c.MisfirePolicy = trigger.Skip
	rules := []notify.Rule{
		{On: notify.OnFailed, Tasks: []string{"other"}, Channel: "ops"},
		{On: notify.OnFailed, Triggers: []string{"tick"}, Channel: "chat"},
		{On: notify.OnSkipped, Tasks: []string{"job"}, Channel: "ops"},
		{On: notify.OnSkipped, Triggers: []string{"tock"}, Reasons: []string{"misfire"}, Channel: "chat"},
	}
	d := newScopedDefs(t, f, "alpha", c, rules...)
	tick := runFinished(t, f, d.Trigger.TriggerID, 1, run.AttemptFailed)
	tock := runFinished(t, f, d.Other.TriggerID, 2, run.AttemptFailed)
	if got := byChannel(t, f, d.Project.ID, tick, notify.OnFailed); fmt.Sprint(got) != "map[chat:1]" {
		t.Fatalf("the failure of tick (task job) notified %v; want chat alone (the rule of trigger tick)", got)
	}
	if got := byChannel(t, f, d.Project.ID, tock, notify.OnFailed); fmt.Sprint(got) != "map[ops:1]" {
		t.Fatalf("the failure of tock (task other) notified %v; want ops alone (the rule of task other)", got)
	}

	for _, page := range []bool{false, true} {
		fx := f
		fx.page = page
		for _, tg := range []trigger.Revision{d.Trigger, d.Other} {
			// PostgreSQL's ledger notifications have random ids, so the
			// new rows are told from those before by id, not by place.
			before := map[string]bool{}
			for _, m := range outbox(t, f) {
				before[m.ID] = true
			}
			makeDue(t, fx, tg.TriggerID, 6*60*60_000)
			p := commitParams(t, takeOne(t, fx))
			if res := commit(t, fx, p); res.Outcome != schedule.Skipped {
				t.Fatalf("page %t: the commit of %s: %s (%s), want skipped", page, tg.Spec.Name, res.Outcome, res.Reason)
			}
			want := map[string]string{"tick": "map[ops:1]", "tock": "map[chat:1]"}[tg.Spec.Name]
			got := map[string]int{}
			for _, m := range outbox(t, f) {
				if before[m.ID] {
					continue
				}
				if m.Event != notify.OnSkipped || m.Payload.Trigger != tg.Spec.Name {
					t.Fatalf("page %t: the skip of %s wrote %+v", page, tg.Spec.Name, m)
				}
				got[m.Channel.Name]++
			}
			if fmt.Sprint(got) != want {
				t.Fatalf("page %t: the skip of %s notified %v; want %s", page, tg.Spec.Name, got, want)
			}
		}
	}
}

// Two rules that differ only by their scope are two rules: each has its
// key, and a Run both cover notifies each once.
func testScopedRulesAreDistinct(t *testing.T, f Fixture) {
	whole := notify.Rule{On: notify.OnFailed, Channel: "ops"}
	scoped := notify.Rule{On: notify.OnFailed, Tasks: []string{"job"}, Channel: "ops"}
	byTrigger := notify.Rule{On: notify.OnFailed, Triggers: []string{"job"}, Channel: "ops"}
	d := newScopedDefs(t, f, "alpha", quietCron(t, f), whole, scoped, byTrigger)
	id := runFinished(t, f, d.Trigger.TriggerID, 1, run.AttemptFailed)
	keys := map[string]bool{}
	for _, m := range outbox(t, f) {
		if m.RunID == id {
			keys[m.RuleKey] = true
		}
	}
	// byTrigger names a trigger called job, which the project lacks: it
	// covers no Run.
	if len(keys) != 2 || !keys[whole.Key()] || !keys[scoped.Key()] {
		t.Fatalf("the failure's notifications have the rule keys %v; want the whole project's rule's %s and the task rule's %s",
			keys, whole.Key(), scoped.Key())
	}
	if whole.Key() == scoped.Key() || scoped.Key() == byTrigger.Key() {
		t.Fatal("rules differing only by their scope share a key")
	}
}
