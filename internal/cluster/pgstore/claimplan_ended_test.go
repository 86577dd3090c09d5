package pgstore

import "testing"

// Ended rows (a cursor with no due offset: the trigger's endAt has passed)
// accumulate for ever and sort where the claim's uninitialised branch
// reads; the claim index leaves them out, so 50,000 of them cost a claim
// nothing. Negative control: the same rows inside the index make the claim
// read them.
func TestEndedRowsDoNotSlowTheClaim(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.buildClaimLayout(t, claimLayout{total: 100_000, dueRows: 5_000, liveClaims: 1_000})
	s.exec(t, `UPDATE qinglong.trigger_schedules SET due_offset_ms = NULL, next_fire_at_ms = next_fire_at_ms - 7200000
		WHERE claim_owner IS NULL AND next_fire_at_ms > `+ClockMsSQL+` AND trigger_id IN (
			SELECT trigger_id FROM qinglong.trigger_schedules ORDER BY next_fire_at_ms DESC LIMIT 50000)`)
	s.exec(t, "VACUUM ANALYZE qinglong.trigger_schedules")
	for _, limit := range []int{1, 16} {
		c := s.explainClaim(t, limit)
		if c.Claimed != limit || c.ScheduleReads > claimReadBudget(limit) || c.Buffers > claimBufferBudget(limit) {
			t.Fatalf("claim of %d over 50,000 ended rows claimed %d, read %d schedule rows (budget %d) and %d buffers (budget %d); plan:\n%s",
				limit, c.Claimed, c.ScheduleReads, claimReadBudget(limit), c.Buffers, claimBufferBudget(limit), c.Plan)
		}
	}
	s.exec(t, "DROP INDEX qinglong.trigger_schedules_unclaimed_order_idx")
	s.exec(t, `CREATE INDEX trigger_schedules_unclaimed_order_idx
		ON qinglong.trigger_schedules ((next_fire_at_ms + due_offset_ms) NULLS FIRST, project_id, trigger_id)
		WHERE claim_owner IS NULL AND schedulable`)
	s.exec(t, "ANALYZE qinglong.trigger_schedules")
	if c := s.explainClaim(t, 16); c.ScheduleReads <= claimReadBudget(16) {
		t.Fatalf("with ended rows in the index the claim read only %d schedule rows; the measurement cannot tell", c.ScheduleReads)
	}
}
