package apply

import (
	"fmt"
	"strings"

	"github.com/qinglong/qinglong/internal/core/notify"
)

// maxRuleChanges is how many added or removed rules an apply's result
// names; the rest are counted, so a rewritten block stays a short line.
const maxRuleChanges = 5

// ruleChanges names the rules a change of a project's notifications adds
// (+) and removes (-), each as a file writes it, so a dry run shows which
// events and scopes are told from now on: "notifications.rules +{on:
// succeeded, tasks: [checkin], channel: phone}". A rule kept is not
// named, wherever it moved; a changed channel changes no rule.
func ruleChanges(before, after string) []string {
	was, _ := notify.Decode(before)
	now, _ := notify.Decode(after)
	keys := func(s notify.Spec) map[string]bool {
		out := map[string]bool{}
		for _, r := range s.Normalize().Rules {
			out[r.Stored] = true
		}
		return out
	}
	wasKeys, nowKeys := keys(was), keys(now)
	var out []string
	more := 0
	add := func(sign string, r notify.Rule) {
		if len(out) < maxRuleChanges {
			out = append(out, "notifications.rules "+sign+ruleFlow(r))
		} else {
			more++
		}
	}
	for _, r := range now.Normalize().Rules {
		if !wasKeys[r.Stored] {
			add("+", r)
		}
	}
	for _, r := range was.Normalize().Rules {
		if !nowKeys[r.Stored] {
			add("-", r)
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("notifications.rules: %d more changed", more))
	}
	return out
}

// ruleFlow is a rule as a file writes it on one line.
func ruleFlow(r notify.Rule) string {
	var parts []string
	if r.On == notify.OnConsecutiveFailures {
		parts = append(parts, fmt.Sprintf("consecutive_failures: %d", r.Count))
	} else {
		parts = append(parts, "on: "+string(r.On))
	}
	for _, l := range []struct {
		key   string
		names []string
	}{{"reasons", r.Reasons}, {"tasks", r.Tasks}, {"triggers", r.Triggers}} {
		if len(l.names) > 0 {
			parts = append(parts, l.key+": ["+strings.Join(l.names, ", ")+"]")
		}
	}
	return "{" + strings.Join(append(parts, "channel: "+r.Channel), ", ") + "}"
}
