package server

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// TestARunIsCancelledOverTheAPIWhileTheClockReadsBehindTheDatabase: while
// the clock reads thirty days behind the database, a cancel over the API
// is taken (every other write is refused), the running Run's command is
// stopped and the Run ends cancelled, and its cancel is dated no earlier
// than anything the database recorded before it.
func TestARunIsCancelledOverTheAPIWhileTheClockReadsBehindTheDatabase(t *testing.T) {
	t.Parallel()
	site := startClockSite(t)
	operate := site.tokens[apitoken.Operate]
	st, body, _ := httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/triggers/"+site.triggerID+"/run", operate, []byte(`{"requestId":"`+ids.New()+`"}`))
	var ran struct{ RunID string }
	if err := json.Unmarshal(body, &ran); st != http.StatusOK || err != nil || ran.RunID == "" {
		t.Fatalf("run now: %d %s; want a Run", st, body)
	}
	db := observer(t, site.dir)
	waitFor(t, "the Run running", 10*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE id = ? AND state = ?`, ran.RunID, string(run.Running)) == 1
	})
	site.setBack(t)

	st, body, _ = httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/runs/"+ran.RunID+"/cancel", operate, nil)
	if st != http.StatusOK {
		t.Fatalf("cancel while the clock reads behind the database: %d %s; want it taken", st, body)
	}
	waitFor(t, "the Run cancelled", 10*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE id = ? AND state = ?`, ran.RunID, string(run.Cancelled)) == 1
	})
	if n := count(t, db, `SELECT count(*) FROM run_events c WHERE c.run_id = ? AND c.name = ?
		AND c.created_at_ms >= (SELECT max(e.created_at_ms) FROM run_events e WHERE e.rowid < c.rowid)`, ran.RunID, run.EventCancelRequested); n != 1 {
		t.Errorf("the cancel is dated before what the database recorded before it (or was not recorded once)")
	}
	if n := count(t, db, `SELECT count(*) FROM run_events a JOIN run_events b ON b.run_id = a.run_id AND b.seq = a.seq + 1
		WHERE a.run_id = ? AND b.created_at_ms < a.created_at_ms`, ran.RunID); n != 0 {
		t.Errorf("the Run's events are out of time order: %d dated before the one they follow", n)
	}
}
