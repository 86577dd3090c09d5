package singlecli

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/single/server"
)

// A data directory handed over (`export --all --with-state`) queues no Run
// by hand: `triggers run`, `runs rerun` and `triggers backfill` are each
// refused database_handed_over (exit 4), saying its triggers run where
// the state was applied and naming the take-back, and queue nothing,
// since no server may run there and the Runs would only run late after a
// take-back. A backfill's --dry-run, which writes nothing, still answers.
func TestAHandedOverDirectoryQueuesNoRunByHand(t *testing.T) {
	t.Parallel()
	dir, queued := handedOverdue(t)
	if code, out, errOut := ql(t, "runs", "cancel", queued, "--data-dir", dir); code != 0 {
		t.Fatalf("runs cancel on a handed-over directory: exit %d %q %q", code, out, errOut)
	}
	db, err := sql.Open("sqlite", server.LayoutOf(dir).DB+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runs := func() int {
		t.Helper()
		var n int
		if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM runs`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := runs()
	hour := time.Now().UTC().Truncate(time.Hour)
	window := []string{"--from", hour.Add(-3 * time.Hour).Format(time.RFC3339), "--to", hour.Add(-2 * time.Hour).Format(time.RFC3339)}
	takeBack := "`ql-edge serve --take-back --data-dir " + dir + "`"
	for _, args := range [][]string{
		{"triggers", "run", "moving/hourly"},
		{"runs", "rerun", queued},
		append([]string{"triggers", "backfill", "moving/hourly"}, window...),
	} {
		code, out, errOut := ql(t, append(args, "--data-dir", dir, "-o", "json")...)
		if code != 4 || !strings.Contains(errOut, `"reason":"database_handed_over"`) || !strings.Contains(errOut, "its triggers run where its state was applied") ||
			!strings.Contains(errOut, takeBack) {
			t.Errorf("%s on a handed-over directory: exit %d %q %q; want exit 4, database_handed_over, naming where the triggers run and %s", strings.Join(args[:2], " "), code, out, errOut, takeBack)
		}
	}
	if n := runs(); n != before {
		t.Errorf("the handed-over directory holds %d Runs after the refused requests, %d before; want none queued", n, before)
	}
	if code, out, errOut := ql(t, append([]string{"triggers", "backfill", "moving/hourly", "--dry-run", "--data-dir", dir}, window...)...); code != 0 {
		t.Errorf("backfill --dry-run on a handed-over directory: exit %d %q %q; want its count", code, out, errOut)
	}
}
