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

// The backlog and starving warnings say how to give the trigger more
// slots where its Runs run: the server's --concurrency on a single node,
// more workers or their --concurrency on the cluster; a backlog of a
// project at its maxRunning says the cap holds it and to raise the cap,
// whatever the slots.
func TestTheSlotAdviceSaysWhatToRaiseOnEachProfile(t *testing.T) {
	cancelPrevious := Cron{Overlap: "cancel_previous"}
	full := run.Last{Queued: BacklogAt, CancelledUnstarted: StarvingAt}
	for _, c := range []struct {
		what string
		last run.Last
		want string
	}{
		{"single node", full, "raise the server's --concurrency"},
		{"cluster", run.Last{Queued: BacklogAt, CancelledUnstarted: StarvingAt, Workers: true}, "start more workers, or raise their --concurrency"},
	} {
		ws := WarningsOf(cancelPrevious, c.last)
		if len(ws) != 2 || !strings.Contains(ws[0].Message, "queued; "+c.want+", or set overlap: skip") || !strings.Contains(ws[1].Message, "slots full); "+c.want+", or set overlap") {
			t.Errorf("%s: %+v; want both warnings to advise %q", c.what, ws, c.want)
		}
	}
	capped := run.Last{Queued: BacklogAt, Project: "team", MaxRunning: 2, ProjectRunning: 2, Workers: true}
	ws := WarningsOf(Cron{}, capped)
	want := "backlog: 10 Runs queued behind its project's cap: team runs 2 of its maxRunning 2 Runs at once; raise the project's maxRunning in its definitions file"
	if len(ws) != 1 || !strings.HasPrefix(ws[0].Message, want) || strings.Contains(ws[0].Message, "--concurrency") {
		t.Errorf("a project at its cap: %+v; want %q and nothing of the slots", ws, want)
	}
	capped.ProjectRunning = 1
	if ws := WarningsOf(Cron{}, capped); len(ws) != 1 || strings.Contains(ws[0].Message, "maxRunning") {
		t.Errorf("a project under its cap: %+v; want the slots' advice, not the cap's", ws)
	}
}
