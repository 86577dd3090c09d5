package pgstore

import (
	"fmt"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// The triggers list reads each trigger it walks at its current revision
// by key, whatever history of republished revisions lies beside it: on
// 200 triggers republished until each has 30 revisions (analyzed), a
// first page and a search that walks every trigger read trigger_revisions
// only through trigger_revisions_pkey, at most one row per trigger, under
// the plan of a first call and under the generic plan a cached statement
// settles on; never a scan of the revisions table to hash.
func TestATriggerListingReadsEachCurrentRevisionByKey(t *testing.T) {
	t.Parallel()
	const triggers, revisions = 200, 30
	s := newStore(t)
	storetest.SeedTriggerHistory(t, s.fixture().Service, triggers, revisions)
	if _, err := s.super.Exec(t.Context(), "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		for _, c := range []struct{ what, args string }{
			{"a first page", "NULL, NULL, 51, NULL, NULL, false"},
			{"a search for the last trigger", fmt.Sprintf("NULL, NULL, 51, '%%tick-%04d%%', NULL, false", triggers-1)},
		} {
			indexes, rows := relationReads(s.explainPrepared(t, mode, sqlTriggerList, c.args))
			for _, ix := range indexes["trigger_revisions"] {
				if ix != "trigger_revisions_pkey" {
					t.Errorf("%s (%s) read trigger_revisions by %q; want only trigger_revisions_pkey", c.what, mode, indexes["trigger_revisions"])
					break
				}
			}
			if rows["trigger_revisions"] > triggers {
				t.Errorf("%s (%s) read %d trigger revisions; want at most one for each of the %d triggers", c.what, mode, rows["trigger_revisions"], triggers)
			}
		}
	}
}
