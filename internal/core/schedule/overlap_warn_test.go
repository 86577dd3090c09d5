package schedule

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// An admission whose cancel_previous cancelled Runs before they started
// (its commit's Finished cancels) is counted in the round's summary by
// trigger, and each such trigger is warned of with its own code, trigger
// and count — at warn when first met, at debug for OverlapWarnEvery after,
// and then at warn again with the cancels held back in between: a
// starving trigger cancels a Run every period, and the log says so every
// few minutes, not every period.
func TestCancelsBeforeAStartAreWarnedOfPerTriggerAtMostOnceEveryFewMinutes(t *testing.T) {
	t.Parallel()
	p := &Page{sum: Summary{Counts: map[Outcome]int{}, Reasons: map[Reason]int{}, Passed: map[PassReason]int64{}}}
	group := []CommitParams{{Ticket: Ticket{Snapshot: Snapshot{TriggerID: "t-1"}}}, {Ticket: Ticket{Snapshot: Snapshot{TriggerID: "t-2"}}}, {Ticket: Ticket{Snapshot: Snapshot{TriggerID: "t-3"}}}}
	p.record(group, []CommitResult{
		{Outcome: Admitted, Finished: run.FinishCounts{Cancelled: 2}},
		{Outcome: Admitted},
		{Outcome: Admitted, Finished: run.FinishCounts{Cancelled: 1}},
	}, nil)
	if got := fmt.Sprint(p.sum.CancelledUnstarted); got != "map[t-1:2 t-3:1]" {
		t.Fatalf("the round's cancels before a start %s; want t-1's two and t-3's one", got)
	}

	buf, d, now := newDiagnostics()
	warned := func(cancelled map[string]int) []map[string]any {
		buf.Reset()
		d.Round(context.Background(), Summary{Taken: 1, Counts: map[Outcome]int{Admitted: 1}, CancelledUnstarted: cancelled})
		var out []map[string]any
		for _, rec := range records(t, buf) {
			if rec["code"] == CodeOverlapCancelledUnstarted {
				out = append(out, rec)
			}
		}
		return out
	}
	for _, c := range []struct {
		what  string
		after time.Duration
		want  string
	}{
		{"first met", 0, "WARN cancelled=1 held_back=<nil>"},
		{"the next period", time.Minute, "DEBUG cancelled=1 held_back=<nil>"},
		{"four minutes on", 3 * time.Minute, "DEBUG cancelled=1 held_back=<nil>"},
		{"five minutes after the warning", time.Minute, "WARN cancelled=1 held_back=2"},
	} {
		*now = now.Add(c.after)
		recs := warned(map[string]int{"t-1": 1})
		if len(recs) != 1 {
			t.Fatalf("%s: %d lines of the code; want one", c.what, len(recs))
		}
		rec := recs[0]
		if got := fmt.Sprintf("%v cancelled=%v held_back=%v", rec["level"], rec["cancelled"], rec["held_back"]); rec["trigger_id"] != "t-1" || got != c.want {
			t.Errorf("%s: %s of trigger %v; want %s of t-1", c.what, got, rec["trigger_id"], c.want)
		}
	}
	if recs := warned(map[string]int{"t-1": 1, "t-2": 3}); len(recs) != 2 || recs[0]["level"] != "DEBUG" || recs[1]["level"] != "WARN" || recs[1]["trigger_id"] != "t-2" {
		t.Errorf("another trigger's cancels in the same round: %v; want t-1's held back and t-2's warned of", recs)
	}
	if recs := warned(nil); len(recs) != 0 {
		t.Errorf("a round with no cancels logged %v", recs)
	}
}
