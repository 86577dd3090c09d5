package console

import (
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
)

// warningLine is an overlap warning (view.WarningsOf) as a page says it in
// its language: the key of its sentence, and its count N with, for
// starving, the number of newest Runs looked at (Of), and for a backlog
// queued behind other triggers' Runs, those triggers (Held); behind its
// project's maxRunning, that project (Held); and how its trigger's Runs
// get more slots where they run (Slots): the server's --concurrency on a
// single node, which has no workers to name, the workers on the cluster.
type warningLine struct {
	Key   string
	N, Of int
	Held  string
	Slots string
}

// warningLines are the overlap warnings of a trigger under c with the
// overlap facts l, in the page's language l; none when nothing is wrong.
func warningLines(lang string, c view.Cron, l run.Last) []warningLine {
	var out []warningLine
	for _, w := range view.WarningsOf(c, l) {
		line := warningLine{Key: "trig.warn." + w.Code, N: w.Count, Of: run.StarvingWindow, Slots: tr(lang, "trig.slots")}
		if l.Workers {
			line.Slots = tr(lang, "trig.slots.workers")
		}
		switch {
		case w.Code != view.WarningBacklog:
		case l.AtProjectCap():
			line.Key += ".capped"
			line.Held = l.Project
		case view.HeldByOthers(l) != "":
			line.Key += ".behind"
			line.Held = holdersList(lang, l.SlotHolders, l.MoreSlotHolders)
		}
		if w.Code == view.WarningBacklog && w.Count >= run.BacklogCountCap {
			line.Key += ".more"
		}
		out = append(out, line)
	}
	return out
}
