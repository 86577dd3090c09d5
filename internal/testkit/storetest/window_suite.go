package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// A time window keeps exactly the Runs whose ids were minted in [from,
// to), newest first, and pages within it by the keyset cursor; a reversed
// window is Invalid.
func testRunListWindow(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	var made []string
	var at []int64
	for len(made) < 4 {
		// Two Runs of one millisecond cannot be told apart by a window:
		// each is admitted in a later one than the one before.
		for len(at) > 0 && time.Now().UnixMilli() <= at[len(at)-1] {
			time.Sleep(time.Millisecond)
		}
		res := runNow(t, f, schedule.RunNowRequest{TriggerID: d.Trigger.TriggerID})
		ms, err := ids.TimeOf(res.RunID)
		if err != nil {
			t.Fatal(err)
		}
		made, at = append(made, res.RunID), append(at, ms)
	}
	list := func(p run.ListParams) []string {
		t.Helper()
		var got []string
		for {
			page, next, err := f.Runs.RunList(t.Context(), p)
			if err != nil {
				t.Fatalf("list %+v: %v", p, err)
			}
			for _, r := range page {
				got = append(got, r.ID)
			}
			if next == "" {
				return got
			}
			p.After = next
		}
	}
	// [second, fourth): the second and third, newest first, a page each.
	got := list(run.ListParams{TriggerID: d.Trigger.TriggerID, FromMs: at[1], ToMs: at[3], Limit: 1})
	if want := []string{made[2], made[1]}; !slices.Equal(got, want) {
		t.Fatalf("window [%d, %d): %v, want %v", at[1], at[3], got, want)
	}
	if got := list(run.ListParams{FromMs: at[3]}); !slices.Equal(got, made[3:]) {
		t.Fatalf("from %d on: %v, want only %v", at[3], got, made[3:])
	}
	if got := list(run.ListParams{ToMs: at[1], State: run.Queued}); !slices.Equal(got, made[:1]) {
		t.Fatalf("before %d: %v, want only %v", at[1], got, made[:1])
	}
	_, _, err := f.Runs.RunList(t.Context(), run.ListParams{FromMs: at[3], ToMs: at[1]})
	requireCode(t, err, qlerror.Invalid, "a reversed window")
}
