package notify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/digest"
	"github.com/qinglong/qinglong/internal/core/run"
)

// A rule without a scope keeps the key rules were stored with before they
// had scopes, so an upgraded server reads its projects' settings as
// unchanged and deduplicates against the rows already written.
func TestARuleWithoutAScopeKeepsTheKeyItWasStoredWith(t *testing.T) {
	r := Rule{On: OnSkipped, Channel: "ops", Reasons: []string{"misfire", "paused"}}
	before := digest.New("qinglong.notify.rule.v1").String("on", string(r.On)).String("channel", r.Channel).
		Strings("reasons", r.Reasons).Int("count", 0).Sum()
	if r.Key() != before {
		t.Fatalf("key %s, want the unscoped form %s", r.Key(), before)
	}
}

// Rules differing only by their scope are distinct (both valid, each its
// key), and a scope's order is no part of its rule.
func TestRulesDifferingOnlyByScopeAreDistinct(t *testing.T) {
	rules := []Rule{
		{On: OnFailed, Channel: "ops"},
		{On: OnFailed, Channel: "ops", Tasks: []string{"a"}},
		{On: OnFailed, Channel: "ops", Triggers: []string{"a"}},
		{On: OnFailed, Channel: "ops", Tasks: []string{"a", "b"}},
	}
	s := Spec{Channels: []Channel{{Name: "ops", Kind: Webhook, URL: "https://h.example.com"}}, Rules: rules}
	if err := s.Validate(); err != nil {
		t.Fatalf("rules of four scopes: %v", err)
	}
	keys := map[string]bool{}
	for _, r := range s.Normalize().Rules {
		keys[r.Stored] = true
	}
	if len(keys) != len(rules) {
		t.Fatalf("%d keys for %d rules of different scopes", len(keys), len(rules))
	}
	s.Rules = append(s.Rules, Rule{On: OnFailed, Channel: "ops", Tasks: []string{"b", "a"}})
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "notifications.rules[4]: the same rule is given twice") {
		t.Fatalf("tasks [b, a] beside tasks [a, b]: %v; want the same rule refused", err)
	}
}

// A scope that is no list of distinct names is refused saying what to
// write.
func TestBadScopesAreRefusedSayingWhatToWrite(t *testing.T) {
	many := make([]string, MaxScope+1)
	for i := range many {
		many[i] = fmt.Sprintf("t%d", i)
	}
	for _, c := range []struct {
		r    Rule
		want string
	}{
		{Rule{Tasks: []string{"Check In"}}, `notifications.rules[0].tasks: "Check In" must use lower-case letters, digits`},
		{Rule{Triggers: []string{"daily", "daily"}}, `notifications.rules[0].triggers: "daily" is given twice`},
		{Rule{Tasks: []string{""}}, "notifications.rules[0].tasks: is required"},
		{Rule{Triggers: many}, "notifications.rules[0].triggers: 65 names, the limit is 64"},
	} {
		c.r.On, c.r.Channel = OnSucceeded, "ops"
		err := Spec{Channels: []Channel{{Name: "ops", Kind: Webhook, URL: "https://h.example.com"}}, Rules: []Rule{c.r}}.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want %q", c.r, err, c.want)
		}
	}
}

// succeeded tells of a success, finished of every end but a cancel, and a
// scoped rule only of its tasks' and triggers' Runs and ledger entries.
func TestRulesFireOnTheirEndsWithinTheirScope(t *testing.T) {
	s := Spec{Channels: []Channel{{Name: "ops", Kind: Webhook, URL: "https://h.example.com"}}, Rules: []Rule{
		{On: OnSucceeded, Channel: "ops"},
		{On: OnFinished, Channel: "ops"},
		{On: OnFailed, Channel: "ops", Tasks: []string{"checkin"}},
		{On: OnFailed, Channel: "ops", Triggers: []string{"nightly"}},
		{On: OnSkipped, Channel: "ops", Tasks: []string{"checkin"}},
	}}
	n := 0
	newID := func() string { n++; return fmt.Sprint(n) }
	events := func(task, trigger string, state run.State) string {
		var out []string
		for _, m := range s.Derive(Finished{TaskName: task, TriggerName: trigger, State: state}, nil, newID) {
			out = append(out, fmt.Sprintf("%s%v%v", m.Event, s.scopeOf(m.RuleKey).Tasks, s.scopeOf(m.RuleKey).Triggers))
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		task, trigger string
		state         run.State
		want          string
	}{
		{"checkin", "daily", run.Succeeded, "succeeded[][] finished[][]"},
		{"checkin", "daily", run.Failed, "finished[][] failed[checkin][]"},
		{"backup", "nightly", run.Failed, "finished[][] failed[][nightly]"},
		{"backup", "", run.Failed, "finished[][]"},
		{"checkin", "nightly", run.TimedOut, "finished[][]"},
		{"checkin", "daily", run.Cancelled, ""},
	} {
		if got := events(c.task, c.trigger, c.state); got != c.want {
			t.Errorf("%s/%s %s: %q, want %q", c.task, c.trigger, c.state, got, c.want)
		}
	}
	for trigTask, want := range map[string]int{"checkin": 1, "backup": 0} {
		if got := len(s.DeriveSkipped(Skipped{TaskName: trigTask, TriggerName: "daily", Reason: "misfire"}, newID)); got != want {
			t.Errorf("a ledger entry of a trigger of task %s: %d notifications, want %d", trigTask, got, want)
		}
	}
}

// scopeOf is the rule of key.
func (s Spec) scopeOf(key string) Rule {
	for _, r := range s.Rules {
		if r.Key() == key {
			return r
		}
	}
	return Rule{}
}
