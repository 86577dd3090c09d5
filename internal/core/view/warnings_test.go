package view

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A trigger is warned of a backlog from BacklogAt queued Runs whatever its
// policy (a capped count says "or more"), and of starving only under
// cancel_previous, from StarvingAt Runs cancelled before they started: a
// person's cancels of an allow trigger's queued Runs are not the policy's.
func TestABacklogAndAStarvingCancelPreviousTriggerAreWarnedOfFromTheirThresholds(t *testing.T) {
	allow, cancelPrevious := Cron{}, Cron{Overlap: "cancel_previous"}
	codes := func(ws []Warning) string {
		var out []string
		for _, w := range ws {
			out = append(out, w.Code)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		what string
		cron Cron
		last run.Last
		want string
	}{
		{"a queue below the threshold", allow, run.Last{Queued: BacklogAt - 1}, ""},
		{"a backlog", allow, run.Last{Queued: BacklogAt}, WarningBacklog},
		{"a backlog under cancel_previous", cancelPrevious, run.Last{Queued: BacklogAt}, WarningBacklog},
		{"cancels below the threshold", cancelPrevious, run.Last{CancelledUnstarted: StarvingAt - 1}, ""},
		{"starving", cancelPrevious, run.Last{CancelledUnstarted: StarvingAt}, WarningStarving},
		{"a person's cancels under allow", allow, run.Last{CancelledUnstarted: run.StarvingWindow}, ""},
		{"both", cancelPrevious, run.Last{Queued: BacklogAt, CancelledUnstarted: StarvingAt}, WarningBacklog + "," + WarningStarving},
	} {
		if got := codes(WarningsOf(c.cron, c.last)); got != c.want {
			t.Errorf("%s: warnings %q, want %q", c.what, got, c.want)
		}
	}
	capped := WarningsOf(allow, run.Last{Queued: run.BacklogCountCap})
	if len(capped) != 1 || !strings.HasPrefix(capped[0].Message, "backlog: 100 or more Runs queued;") {
		t.Errorf("a capped count: %+v; want it said as a lower bound", capped)
	}
}
