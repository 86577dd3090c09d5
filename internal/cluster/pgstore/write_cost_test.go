package pgstore

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// TestScheduleRowsKeepTheirPageThroughClaimAndAdmission: a schedule row's
// two updates per occurrence (the claim, the admission) cannot be HOT, but
// the room the table leaves on each page lets each new version stay on its
// row's page once the versions before it are gone (pruned on the way, or
// vacuumed as here so the test does not depend on what other transactions
// of the server hold back), so an occurrence writes one heap page of the
// schedule and no lock record for a version leaving its page. A burst of
// due triggers whose rows share their pages, every one claimed and admitted
// in one page, is measured by where each row's version lives before the
// claim, after it and after the admission. The negative control packs the
// same rows tight (fillfactor 100, rewritten): there they leave their pages.
func TestScheduleRowsKeepTheirPageThroughClaimAndAdmission(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	const n = 100
	projectID, _ := s.admitRuns(t, "pages", n)
	if claim, admit := s.cycleMoved(t, projectID, n); claim+admit != 0 {
		t.Errorf("of %d schedule rows, %d left their page on the claim and %d on the admission; want none", n, claim, admit)
	}

	s.exec(t, `ALTER TABLE qinglong.trigger_schedules SET (fillfactor = 100)`)
	s.exec(t, `VACUUM FULL qinglong.trigger_schedules`)
	if claim, admit := s.cycleMoved(t, projectID, n); claim < n/3 {
		t.Errorf("negative control: on packed pages %d of %d rows left their page on the claim (%d on the admission); want at least %d",
			claim, n, admit, n/3)
	}
}

// cycleMoved makes the project's n rows due, claims and admits them in one
// page and returns how many rows' versions left their page on each step.
func (s *store) cycleMoved(t *testing.T, projectID string, n int) (claim, admit int) {
	t.Helper()
	s.exec(t, `UPDATE qinglong.trigger_schedules
		SET next_fire_at_ms = `+ClockMsSQL+` - 1000, state_version = state_version + 1
		WHERE project_id = $1`, projectID)
	s.exec(t, `VACUUM qinglong.trigger_schedules`)
	before := s.schedulePages(t, projectID)
	tks := s.takeAll(t, s.runtime)
	if len(tks) != n {
		t.Fatalf("took %d rows, want %d", len(tks), n)
	}
	claimed := s.schedulePages(t, projectID)
	s.exec(t, `VACUUM qinglong.trigger_schedules`)
	for i, res := range commitPage(t, s.runtime, paramsOf(t, tks)) {
		if res.Outcome != schedule.Admitted {
			t.Fatalf("row %d: %s (%s) %v", i, res.Outcome, res.Reason, res.Err)
		}
	}
	for id, page := range s.schedulePages(t, projectID) {
		if before[id] != claimed[id] {
			claim++
		}
		if claimed[id] != page {
			admit++
		}
	}
	return claim, admit
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

// TestCheaperChecksAcceptExactlyWhatTheirRegexesDid: the CHECKs on the rows
// every admission and lease writes were rewritten without a bounded
// repetition (the migration says why); each, as installed, must accept and
// reject exactly the strings its regular expression did — around every
// bound (lengths 0–130, 63/64/65 digits), other characters in each
// position, a trailing or leading newline, repeated separators, non-ASCII
// letters and NULL.
func TestCheaperChecksAcceptExactlyWhatTheirRegexesDid(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	hex := strings.Repeat("0123456789abcdef", 4)
	cands := []string{"", "\n", "é", "a b", "_a", "-a", ".a", ":a", "A9", "9", "replica-1:bench-0", "a\n", "\na"}
	for n := 0; n <= 130; n++ {
		cands = append(cands, strings.Repeat("a", n), strings.Repeat("Z", n), "b"+strings.Repeat("_.:-", n/4), strings.Repeat("é", n))
	}
	digests := []string{hex, hex[:63], hex + "a", strings.ToUpper(hex), hex[:63] + "g", hex + "\n", "\n" + hex, hex[:32] + ":" + hex[:31],
		hex[:63] + "é", hex + hex, "", hex + ":", ":" + hex[:63], hex + ":sha256:" + hex}
	for _, d := range digests {
		cands = append(cands, d)
		for _, rev := range []string{"1", "0", "12345", "", "a", "-1", " 1", "1:2"} {
			cands = append(cands, "qltd:v1:"+rev+":sha256:"+d, "qltd:v2:"+rev+":sha256:"+d, "xqltd:v1:"+rev+":sha256:"+d, "qltd:v1:"+rev+":sha256::"+d)
		}
	}
	for _, c := range []struct{ table, constraint, column, regex string }{
		{"runs", "runs_execution_revision_id_check", "execution_revision_id", `^qltd:v1:[0-9]+:sha256:[0-9a-f]{64}$`},
		{"trigger_schedules", "trigger_schedules_claim_owner_check", "claim_owner", `^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`},
		{"attempts", "attempts_lease_token_sha256_check", "lease_token_sha256", `^[0-9a-f]{64}$`},
		{"attempts", "attempts_callback_token_sha256_check", "callback_token_sha256", `^[0-9a-f]{64}$`},
	} {
		var expr string
		if err := s.super.QueryRow(t.Context(), `SELECT pg_get_expr(conbin, conrelid) FROM pg_constraint
			WHERE conname = $1 AND conrelid = ('qinglong.' || $2)::regclass`, c.constraint, c.table).Scan(&expr); err != nil {
			t.Fatalf("%s: %v", c.constraint, err)
		}
		var differ, accepted, rejected int
		var nullAccepted bool
		if err := s.super.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE (`+expr+`) IS DISTINCT FROM (`+c.column+` ~ $2)),
				count(*) FILTER (WHERE `+c.column+` ~ $2), count(*) FILTER (WHERE NOT `+c.column+` ~ $2),
				(SELECT (`+expr+`) IS NOT FALSE FROM (SELECT NULL::text AS `+c.column+`) n)
			  FROM unnest($1::text[]) AS v (`+c.column+`)`, cands, c.regex).Scan(&differ, &accepted, &rejected, &nullAccepted); err != nil {
			t.Fatalf("%s: %v", c.constraint, err)
		}
		if differ != 0 || !nullAccepted {
			t.Errorf("%s (%s) differs from %s on %d of %d strings; accepts NULL: %v", c.constraint, expr, c.regex, differ, len(cands), nullAccepted)
		}
		if accepted == 0 || rejected == 0 {
			t.Errorf("%s: the strings exercise only one side (%d accepted, %d rejected)", c.constraint, accepted, rejected)
		}
	}
}
