package schedule

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/cron"
)

func mustCron(t *testing.T, expr string) *cron.Schedule {
	t.Helper()
	s, err := cron.Parse(expr, "UTC")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAPassedRangeCountsEveryNominalOccurrenceInIt(t *testing.T) {
	s := mustCron(t, "*/5 * * * * *")
	const base = int64(1_800_000_000_000) // a whole minute
	p, ok := PassRange(s, PassMisfire, base, base+60_000)
	if !ok || p.Count != 13 || p.FirstMs != base || p.LastMs != base+60_000 || p.AtLeast || p.Reason != PassMisfire {
		t.Fatalf("got %+v ok=%v; want 13 occurrences from %d to %d", p, ok, base, base+60_000)
	}
	if _, ok := PassRange(s, PassMisfire, base+1, base+4_999); ok {
		t.Fatal("a range holding no occurrence gave an entry")
	}
}

func TestAPassedRangeBeyondTheCountLimitKeepsItsTrueLastOccurrence(t *testing.T) {
	s := mustCron(t, "* * * * * *")
	const base = int64(1_800_000_000_000)
	to := base + 86_400_000 // one day of seconds: 86,401 occurrences
	p, ok := PassRange(s, PassCollapsed, base, to)
	if !ok || p.Count != MaxPassedCount || !p.AtLeast || p.FirstMs != base || p.LastMs != to {
		t.Fatalf("got %+v; want %d counted, at least, last %d", p, MaxPassedCount, to)
	}
}
