package console

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// took is how long a finished Run took from its admission to its finish
// (its queue, attempts and retries' waits included), in l, "—" while it
// has not finished.
func took(l string, r run.Run) string {
	if r.FinishedAtMs == nil {
		return "—"
	}
	return humanDuration(l, time.Duration(*r.FinishedAtMs-r.CreatedAtMs)*time.Millisecond)
}

// ran is how long a finished Run's attempts ran, added up (from each
// one's start to its end: no queue, no wait between retries; the store
// adds them up, run.Run.RanMs), in l; "" before it finishes. A lost
// Run's figure that counts only until its worker was last heard from
// says it is a lower bound ("≥ 9ms (until last heard from)").
func ran(l string, r run.Run) string {
	if r.RanMs == nil {
		return ""
	}
	d := humanDuration(l, time.Duration(*r.RanMs)*time.Millisecond)
	if r.RanUntilLastHeard {
		return fmt.Sprintf(tr(l, "ran.atleast"), d)
	}
	return d
}

// attemptDuration is how long one attempt ran, in l, "—" while it has not
// both started and ended.
func attemptDuration(l string, a run.Attempt) string {
	if a.StartedAtMs == nil || a.FinishedAtMs == nil {
		return "—"
	}
	return humanDuration(l, time.Duration(*a.FinishedAtMs-*a.StartedAtMs)*time.Millisecond)
}

// age is how long ago something was, ms before the page was read, in
// whole seconds and in l (12s, 12秒; 1m5s): a heartbeat's, counted in
// database time.
func age(l string, ms int64) string {
	return humanDuration(l, (time.Duration(ms) * time.Millisecond).Truncate(time.Second))
}

// durationUnits are the units a duration is said in, by language: hours,
// minutes, seconds, milliseconds.
var durationUnits = map[string][4]string{
	"en": {"h", "m", "s", "ms"},
	"zh": {"小时", "分", "秒", "毫秒"},
}

// humanDuration says d as a person reads it, in l: milliseconds under a
// second (9ms, 9毫秒), seconds to a tenth under a minute (2.5s, 2.5秒),
// whole seconds, minutes and hours above (1m51s, 1分51秒; 2h0m5s), never
// Go's 1m51.341s.
func humanDuration(l string, d time.Duration) string {
	u, ok := durationUnits[l]
	if !ok {
		u = durationUnits["en"]
	}
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + u[3]
	case d < time.Minute:
		s := strconv.FormatFloat(d.Round(100*time.Millisecond).Seconds(), 'f', 1, 64)
		return strings.TrimSuffix(s, ".0") + u[2]
	}
	d = d.Round(time.Second)
	h, m, s := int64(d/time.Hour), int64(d%time.Hour/time.Minute), int64(d%time.Minute/time.Second)
	var b strings.Builder
	if h > 0 {
		fmt.Fprintf(&b, "%d%s", h, u[0])
	}
	if m > 0 || (h > 0 && s > 0) {
		fmt.Fprintf(&b, "%d%s", m, u[1])
	}
	if s > 0 || b.Len() == 0 {
		fmt.Fprintf(&b, "%d%s", s, u[2])
	}
	return b.String()
}
