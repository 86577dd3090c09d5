package console

import (
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
)

// warningLine is an overlap warning (view.WarningsOf) as a page says it in
// its language: the key of its sentence, and its count N with, for
// starving, the number of newest Runs looked at (Of).
type warningLine struct {
	Key   string
	N, Of int
}

// warningLines are the overlap warnings of a trigger under c with the
// overlap facts l, in the page's words; none when nothing is wrong.
func warningLines(c view.Cron, l run.Last) []warningLine {
	var out []warningLine
	for _, w := range view.WarningsOf(c, l) {
		line := warningLine{Key: "trig.warn." + w.Code, N: w.Count, Of: run.StarvingWindow}
		if w.Code == view.WarningBacklog && w.Count >= run.BacklogCountCap {
			line.Key += ".more"
		}
		out = append(out, line)
	}
	return out
}
