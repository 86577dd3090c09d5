package sqlitestore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// copyTriggerSQL is, for each table of a trigger's definition and
// schedule, an insert of n copies of template's rows, written behind the
// store's back: the trigger's id is the random prefix ?3 followed by a
// counter, its name the template's with the counter.
func copyTriggerSQL(tb testing.TB, e *env) string {
	tb.Helper()
	var out strings.Builder
	for _, c := range []struct{ table, key string }{{"trigger_revisions", "trigger_id"}, {"triggers", "id"}, {"trigger_schedules", "trigger_id"}} {
		rows, err := e.raw.Query(`SELECT name FROM pragma_table_info(?)`, c.table)
		if err != nil {
			tb.Fatal(err)
		}
		var cols, exprs []string
		for rows.Next() {
			var col string
			if err := rows.Scan(&col); err != nil {
				tb.Fatal(err)
			}
			expr := col
			switch {
			case col == c.key:
				expr = "printf('%s%012x', ?3, n)"
			case col == "name" && c.table == "triggers":
				expr = "name || '-' || n"
			}
			cols, exprs = append(cols, col), append(exprs, expr)
		}
		if err := rows.Close(); err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(&out, "WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < ?2) INSERT INTO %s (%s) SELECT %s FROM i, %s WHERE %s = ?1;\n",
			c.table, strings.Join(cols, ", "), strings.Join(exprs, ", "), c.table, c.key)
	}
	return out.String()
}

// seedTriggerCopies adds n copies of trigger template, each with its own
// schedule row.
func (e *env) seedTriggerCopies(tb testing.TB, template string, n int) {
	tb.Helper()
	if err := e.seedBehind(context.Background(), "PRAGMA defer_foreign_keys = ON;"+copyTriggerSQL(tb, e), template, n, idPrefix()); err != nil {
		tb.Fatalf("copy trigger %s %d times: %v", template, n, err)
	}
}

// benchOthersDue is how many schedule rows of other projects are due, all
// before the bound project's, in BenchmarkBoundBacklogBesideOthersDue.
const benchOthersDue = 100_000

// BenchmarkBoundBacklogBesideOthersDue measures the overview's backlog of
// a user bound to one project with 3 due triggers (Backlog, cut at
// schedule.MonitorLimit), with no other project's row due and with
// 100,000 rows of another project due before them.
func BenchmarkBoundBacklogBesideOthersDue(b *testing.B) {
	for _, others := range []int{0, benchOthersDue} {
		b.Run(fmt.Sprintf("others=%d", others), func(b *testing.B) {
			e := newEnv(b)
			own := e.projectTB(b, "own")
			tk := e.taskTB(b, own.ID)
			for i := range 3 {
				e.triggerTB(b, own.ID, tk, fmt.Sprintf("own%d", i))
			}
			other := e.projectTB(b, "others")
			otk := e.taskTB(b, other.ID)
			if others > 0 {
				e.seedTriggerCopies(b, e.triggerTB(b, other.ID, otk, "other"), others)
			}
			// The schedule rows are made due in place: the backlog reads
			// them as a take would, without a take's verification of each
			// trigger's definition, which the copies would fail.
			if _, err := e.raw.Exec(`UPDATE trigger_schedules SET next_fire_at_ms = CASE project_id WHEN ?2 THEN ?1 - 10 ELSE ?1 - 1000000 + rowid END,
				due_offset_ms = 0, state_version = state_version + 1`, e.clock.NowMs(), own.ID); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				bl, err := e.store.Backlog(b.Context(), schedule.MonitorLimit, []string{"own"})
				if err != nil || bl.Due != 3 {
					b.Fatalf("backlog %+v, %v; want the bound project's 3 due", bl, err)
				}
			}
		})
	}
}
