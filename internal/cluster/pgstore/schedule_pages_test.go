package pgstore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// TestScheduleRowsKeepTheirPageThroughClaimAndAdmission: a schedule row's
// two updates per occurrence (the claim, the admission) cannot be HOT, but
// the table's free space lets each new version stay on its row's page, so
// an occurrence writes one heap page of the schedule, not up to three, and
// no lock record for a version that left its page. A burst of due triggers
// whose rows share their pages, every one claimed and admitted together
// (one page of the claim), is measured by where each row's version lives
// before and after. The negative control packs the same rows tight
// (fillfactor 100, rewritten) and shows the measure can fail: there the
// rows leave their pages.
func TestScheduleRowsKeepTheirPageThroughClaimAndAdmission(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	const n = 200
	projectID, _ := s.admitRuns(t, "pages", n)
	if moved := s.cycleMoved(t, projectID, n); moved > n/20 {
		t.Errorf("%d of %d schedule rows left their page through one claim and admission; want at most %d", moved, n, n/20)
	}

	s.exec(t, `ALTER TABLE qinglong.trigger_schedules SET (fillfactor = 100)`)
	s.exec(t, `VACUUM FULL qinglong.trigger_schedules`)
	if moved := s.cycleMoved(t, projectID, n); moved < n/2 {
		t.Errorf("negative control: on packed pages %d of %d rows left their page; want at least %d", moved, n, n/2)
	}
}

// cycleMoved makes the project's n rows due, admits them in one round and
// returns how many rows' versions are no longer on the page they were on.
func (s *store) cycleMoved(t *testing.T, projectID string, n int) int {
	t.Helper()
	s.exec(t, `UPDATE qinglong.trigger_schedules
		SET next_fire_at_ms = `+ClockMsSQL+` - 1000, state_version = state_version + 1
		WHERE project_id = $1`, projectID)
	before := s.schedulePages(t, projectID)
	sum, err := schedule.Round(t.Context(), s.runtime, schedule.RoundConfig{PageSize: schedule.MaxPageSize, Parallel: 4, GraceMs: 30_000, NewID: ids.New})
	if err != nil || sum.Counts[schedule.Admitted] != n {
		t.Fatalf("round admitted %v (errors %v, err %v), want %d", sum.Counts, sum.Errors, err, n)
	}
	moved := 0
	for id, page := range s.schedulePages(t, projectID) {
		if before[id] != page {
			moved++
		}
	}
	return moved
}

// schedulePages is the heap page of each of the project's schedule rows.
func (s *store) schedulePages(t *testing.T, projectID string) map[string]int64 {
	t.Helper()
	rows, err := s.super.Query(t.Context(), `SELECT trigger_id::text, (ctid::text::point)[0]::bigint
		FROM qinglong.trigger_schedules WHERE project_id = $1`, projectID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var id string
		var page int64
		if err := rows.Scan(&id, &page); err != nil {
			t.Fatal(err)
		}
		out[id] = page
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
