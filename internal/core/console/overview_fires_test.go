package console

import (
	"fmt"
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// On a server of more triggers than a page holds (1,500 over three
// projects), the overview's next fires are the soonest of every trigger,
// not of the first page's alone: a trigger of the last page firing first
// is listed first, and every trigger counts as listed.
func TestTheOverviewsNextFiresAreTheSoonestOfEveryTrigger(t *testing.T) {
	utc := trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.Skip}
	var all []schedule.TriggerStatus
	for i := range 3 * triggersPage {
		at := int64(1_000_000 + i)
		if i == 3*triggersPage-1 {
			at = 5
		}
		all = append(all, schedule.TriggerStatus{TriggerID: fmt.Sprintf("t%04d", i), Enabled: true, Cron: utc, NextFireAtMs: &at, NextDueAtMs: &at})
	}
	reads := 0
	pages := func(after string) ([]schedule.TriggerStatus, string, error) {
		reads++
		from := 0
		if after != "" {
			from = slices.IndexFunc(all, func(s schedule.TriggerStatus) bool { return s.TriggerID == after }) + 1
		}
		to := min(from+triggersPage, len(all))
		cursor := ""
		if to < len(all) {
			cursor = all[to-1].TriggerID
		}
		return all[from:to], cursor, nil
	}
	next, unknown, listed, err := soonestFires(t.Context(), pages)
	if err != nil {
		t.Fatal(err)
	}
	if listed != len(all) || reads != 3 || len(unknown) != 0 {
		t.Fatalf("%d triggers listed in %d reads, %d unknown; want all %d in 3 pages", listed, reads, len(unknown), len(all))
	}
	if len(next) != nextFires || next[0].TriggerID != all[len(all)-1].TriggerID || next[1].TriggerID != "t0000" {
		t.Errorf("next fires start %s, %s (%d); want %s, the last page's, then t0000", next[0].TriggerID, next[1].TriggerID, len(next), all[len(all)-1].TriggerID)
	}
}
