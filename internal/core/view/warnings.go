package view

import (
	"fmt"
	"strings"

	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Warning is a state of a trigger its reader is warned of, worked out at
// read time from the trigger's stored Runs (run.Last's overlap facts):
// nothing stores it, so it is gone as soon as its cause is.
type Warning struct {
	// Code names the warning: WarningBacklog or WarningStarving.
	Code string `json:"code" doc:"The warning: backlog (many of the trigger's Runs are queued) or starving (under overlap cancel_previous, most of its newest Runs were cancelled before they started)."`
	// Count is the Runs it counts: queued ones (backlog; run.BacklogCountCap
	// means at least as many), or those of the newest run.StarvingWindow
	// cancelled before they started (starving).
	Count int `json:"count" doc:"The Runs it counts: the queued ones for backlog (100 means at least as many), those of the newest 5 cancelled before they started for starving."`
	// Message says it, and what to do, in a sentence.
	Message string `json:"message" doc:"The warning in an English sentence, with what to do." cmdname:"said"`
}

// The warnings' codes.
const (
	// WarningBacklog: at least BacklogAt of the trigger's Runs are queued.
	WarningBacklog = "backlog"
	// WarningStarving: under overlap cancel_previous, at least StarvingAt
	// of the trigger's newest run.StarvingWindow Runs were cancelled before
	// they started.
	WarningStarving = "starving"
)

// BacklogAt is how many queued Runs of one trigger are a backlog. A
// trigger whose command keeps up with its period has at most a Run or two
// queued at a time, waiting a moment for a slot; one whose command is
// slower than its period (under overlap allow) or whose slots stay full
// gains one each period, and reaches ten in ten periods — ten minutes for
// a job every minute — long before its queue costs more than a wait, yet
// before it grows past what an operator can drain by hand. A backfill of
// ten or more occurrences is warned of too while it drains: it is one.
const BacklogAt = 10

// StarvingAt is how many of a cancel_previous trigger's newest
// run.StarvingWindow Runs cancelled before they started make it starving.
// One such cancel is the policy doing its work (the previous occurrence
// waited a moment for a slot when the next fell due); three of five mean
// the slots stayed full through three periods, the state in which every
// occurrence is cancelled before it runs and the job never does.
const StarvingAt = 3

// WarningsOf are the warnings a trigger under overlap policy c.Overlap
// gets from its overlap facts l; none when nothing is wrong.
func WarningsOf(c Cron, l run.Last) []Warning {
	var out []Warning
	if l.Queued >= BacklogAt {
		n := plural.Count(l.Queued, "Run", "Runs")
		if l.Queued >= run.BacklogCountCap {
			n = fmt.Sprintf("%d or more Runs", l.Queued)
		}
		msg := "backlog: " + n + " queued; " + raiseSlots(l) + ", or set overlap: skip so that an occurrence due while one runs gets no Run"
		switch others := HeldByOthers(l); {
		case l.AtProjectCap():
			msg = fmt.Sprintf("backlog: %s queued behind its project's cap: %s runs %d of its maxRunning %d Runs at once; "+
				"raise the project's maxRunning in its definitions file, or set overlap: skip so that an occurrence due while one runs gets no Run", n, l.Project, l.ProjectRunning, l.MaxRunning)
		case others != "":
			msg = "backlog: " + n + " queued behind " + others
		}
		out = append(out, Warning{Code: WarningBacklog, Count: l.Queued, Message: msg})
	}
	if c.Overlap == string(trigger.OverlapCancelPrevious) && l.CancelledUnstarted >= StarvingAt {
		out = append(out, Warning{Code: WarningStarving, Count: l.CancelledUnstarted,
			Message: fmt.Sprintf("starving: %d of the newest %d Runs were cancelled before they started (overlap: cancel_previous with the slots full); %s, or set overlap: skip or queue_one", l.CancelledUnstarted, run.StarvingWindow, raiseSlots(l))})
	}
	return out
}

// HeldByOthers says, for a trigger whose Runs queue while other triggers'
// Runs hold every slot it could take, which those are and what to do:
// "delta/runaway's 2 running; pause that trigger (`ql triggers pause
// delta/runaway`) or raise the server's --concurrency". It is "" when the trigger holds a
// slot itself (its own command is slower than its period: today's advice
// fits) or when the reader does not know the holders (the cluster). To a
// token bound to projects none of whose triggers holds a slot it says
// that other projects' Runs do, never which: "3 Runs of other projects
// holding the slots; ask the server's operator".
func HeldByOthers(l run.Last) string {
	w := run.Waiting{Holders: l.SlotHolders, MoreHolders: l.MoreSlotHolders, OtherProjectsRuns: l.OtherProjectsRuns}
	if others := w.OthersOnly(); others != "" {
		return strings.Replace(others, ";", " holding the slots;", 1)
	}
	if len(l.SlotHolders) == 0 {
		return ""
	}
	for _, h := range l.SlotHolders {
		if h.TriggerID == l.TriggerID {
			return ""
		}
	}
	if len(l.SlotHolders) == 1 && l.MoreSlotHolders == 0 && l.OtherProjectsRuns == 0 {
		h := l.SlotHolders[0]
		name := h.Project + "/" + h.Trigger
		return fmt.Sprintf("%s's %d running; pause that trigger (`ql triggers pause %s`) or raise the server's --concurrency", name, h.Runs, name)
	}
	held := w.HoldersText()
	return "the Runs of " + held + " running; pause those triggers (`ql triggers pause PROJECT/TRIGGER`) or raise the server's --concurrency"
}

// raiseSlots says how to give a trigger's Runs more slots where they run:
// on a single node the server's --concurrency bounds them, on the cluster
// the workers (their number and each one's --concurrency) do.
func raiseSlots(l run.Last) string {
	if l.Workers {
		return "start more workers, or raise their --concurrency"
	}
	return "raise the server's --concurrency"
}
