package console

import (
	"encoding/json"
	"html/template"

	"github.com/qinglong/qinglong/internal/core/run"
)

// runStarted is when the Run began to run, its first attempt's start, for
// the page's facts; 0 while no attempt has started (the facts then leave
// it out rather than say a time it does not have).
func runStarted(d run.Detail) int64 {
	for _, a := range d.Attempts {
		if a.StartedAtMs != nil {
			return *a.StartedAtMs
		}
	}
	return 0
}

// nextRetry says, while the Run waits to retry, which attempt comes next
// and from when, in language l and zone (as its run.retry_wait event says
// it among the events); "" in any other state, or when the event names no
// time (a Run written before the stores recorded one).
func nextRetry(l string, d run.Detail, zone string) template.HTML {
	if d.Run.State != run.RetryWait {
		return ""
	}
	for i := len(d.Events) - 1; i >= 0; i-- {
		if d.Events[i].Name != run.EventRetryWait {
			continue
		}
		var p struct {
			NextAttempt   int64 `json:"nextAttempt"`
			AvailableAtMs int64 `json:"availableAtMs"`
		}
		if json.Unmarshal([]byte(d.Events[i].Payload), &p) != nil || p.NextAttempt == 0 || p.AvailableAtMs == 0 {
			return ""
		}
		return formatText(eventFactWords[l]["next"], p.NextAttempt, unbroken(when(p.AvailableAtMs, zone)))
	}
	return ""
}
