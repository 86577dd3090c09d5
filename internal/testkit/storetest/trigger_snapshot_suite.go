package storetest

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// testATriggersPageAndItsCountReadOneSnapshot: the counts and listings made
// through one TriggerSnapshot see the same triggers. A project published
// after its count, through another handle as `ql apply` on the database
// would, is in none of its pages, which walk to the count; a count after
// the snapshot has it.
func testATriggersPageAndItsCountReadOneSnapshot(t *testing.T, f Fixture) {
	applyText(t, f, "shop.yaml", searchFile)
	other := f
	other.Service = f.AnotherService(t)
	var counted, walked int
	err := f.Snapshot.TriggerSnapshot(t.Context(), func(r schedule.StatusCounter) error {
		var err error
		if counted, err = r.TriggerCount(t.Context(), schedule.TriggerListParams{}); err != nil {
			return err
		}
		applyText(t, other, "depot.yaml", titledProjectFile)
		p := schedule.TriggerListParams{Limit: 2}
		for {
			list, next, err := r.TriggerList(t.Context(), p)
			if err != nil {
				return err
			}
			walked += len(list)
			if next == "" {
				return nil
			}
			p.After = next
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if counted == 0 || walked != counted {
		t.Fatalf("in one snapshot the count is %d and its pages list %d, a project published between them; want them equal, without the project", counted, walked)
	}
	after, err := f.Count.TriggerCount(t.Context(), schedule.TriggerListParams{})
	if err != nil || after != counted+1 {
		t.Fatalf("after the snapshot the count is %d (%v), want %d: the project published during it is not there, so the snapshot proved nothing", after, err, counted+1)
	}
}
