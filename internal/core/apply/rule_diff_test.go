package apply

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/notify"
)

// An update of a project's notifications names the rules it adds and
// removes as a file writes them, events and scopes with them, not the
// rules it keeps (in whatever order), and counts those past the first few.
func TestAnUpdateOfTheNotificationsNamesTheRulesItAddsAndRemoves(t *testing.T) {
	ch := []notify.Channel{{Name: "ops", Kind: notify.Webhook, URL: "https://h.example.com"}}
	before := notify.Spec{Channels: ch, Rules: []notify.Rule{
		{On: notify.OnFailed, Channel: "ops"},
		{On: notify.OnSkipped, Reasons: []string{"paused", "misfire"}, Channel: "ops"},
	}}.Encode()
	after := notify.Spec{Channels: ch, Rules: []notify.Rule{
		{On: notify.OnSkipped, Reasons: []string{"misfire", "paused"}, Channel: "ops"},
		{On: notify.OnFinished, Tasks: []string{"checkin"}, Triggers: []string{"b", "a"}, Channel: "ops"},
		{On: notify.OnConsecutiveFailures, Count: 3, Channel: "ops"},
	}}.Encode()
	want := "notifications.rules +{on: finished, tasks: [checkin], triggers: [a, b], channel: ops}; " +
		"notifications.rules +{consecutive_failures: 3, channel: ops}; notifications.rules -{on: failed, channel: ops}"
	if got := strings.Join(ruleChanges(before, after), "; "); got != want {
		t.Fatalf("changes %q, want %q", got, want)
	}
	var many []notify.Rule
	for i := range 8 {
		many = append(many, notify.Rule{On: notify.OnSucceeded, Tasks: []string{fmt.Sprintf("t%d", i)}, Channel: "ops"})
	}
	got := ruleChanges(before, notify.Spec{Channels: ch, Rules: many}.Encode())
	if len(got) != maxRuleChanges+1 || got[maxRuleChanges] != "notifications.rules: 5 more changed" {
		t.Fatalf("ten changes read %q; want the first %d and the rest counted", got, maxRuleChanges)
	}
}
