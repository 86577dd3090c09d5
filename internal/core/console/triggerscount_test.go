package console

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// rowsRead is the store the console lists triggers from, counting the
// rows the listings of its snapshots return.
type rowsRead struct {
	*sqlitestore.Store
	rows int
}

func (r *rowsRead) TriggerSnapshot(ctx context.Context, fn func(schedule.StatusCounter) error) error {
	return r.Store.TriggerSnapshot(ctx, func(s schedule.StatusCounter) error { return fn(snapshotRows{StatusCounter: s, read: r}) })
}

// snapshotRows is a snapshot's reader that counts the rows its listings
// return.
type snapshotRows struct {
	schedule.StatusCounter
	read *rowsRead
}

func (s snapshotRows) TriggerList(ctx context.Context, p schedule.TriggerListParams) ([]schedule.TriggerStatus, string, error) {
	list, next, err := s.StatusCounter.TriggerList(ctx, p)
	s.read.rows += len(list)
	return list, next, err
}

// On a store of 350 triggers the triggers list says how many its filters
// match from the store's count: its first page reads the 100 rows it
// shows, its second the 200 up to its own, never every match, each in
// the count's snapshot, and a search's page counts the triggers the
// search finds.
func TestTheTriggersListCountsItsMatchesWithoutReadingThem(t *testing.T) {
	read := &rowsRead{}
	b := newBatchSite(t, func(cfg *Config) { read.Store = cfg.Triggers.(*sqlitestore.Store); cfg.Triggers = read })
	for i := range 347 {
		b.publishQuiet(t, fmt.Sprintf("filler-%03d", i), true)
	}
	for _, c := range []struct {
		path, count string
		rows        int
	}{
		{"/triggers?lang=en", "Triggers 1–100 of 350 · page 1 of 4", triggersShown},
		{"/triggers?page=2&lang=en", "Triggers 101–200 of 350 · page 2 of 4", 2 * triggersShown},
		{"/triggers?q=filler-1&lang=en", "Triggers 1–100 of 100", triggersShown},
	} {
		read.rows = 0
		page := b.do(apitoken.Read, c.path, nil).Body.String()
		if !strings.Contains(page, `<p id="triggers-count">`+c.count+`</p>`) || read.rows != c.rows {
			t.Errorf("%s read %d rows of the store in the count's snapshot; want it to say %q and read the %d up to its page:\n%s", c.path, read.rows, c.count, c.rows, page)
		}
	}
}
