package httpapi

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/availability"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A read held up by a lock elsewhere runs out of the request's own time:
// that is the request's failure, not a lost database, so the replica's
// availability latch must hold and readiness stay 200.
func TestARequestTimingOutBehindALockLeavesTheReplicaAvailable(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("slow", 1, clustertest.QuietCron()))
	env.MakeDue(t, 1000)
	rt := env.Runtime(t, "replica-slow", 30*time.Second)
	sum, err := schedule.Round(t.Context(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill})
	if err != nil || len(sum.Admitted) != 1 {
		t.Fatalf("round %v %v", sum.Counts, err)
	}
	latch := availability.New()
	ready := func() (bool, string) {
		if !latch.Available() {
			return false, "database_unavailable"
		}
		return true, ""
	}
	srv := httptest.NewServer(authed(t, Config{Runs: rt, Triggers: rt, Ready: ready, Log: slog.New(slog.DiscardHandler),
		Observe: func(err error) { latch.Observe(err) }, RequestTimeout: 300 * time.Millisecond}))
	t.Cleanup(srv.Close)

	lock, err := env.Super.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback(context.Background()) // released below; no-op then
	if _, err := lock.Exec(context.Background(), `LOCK TABLE qinglong.run_events IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	var e struct {
		Error struct{ Code, Message string }
	}
	status := make(chan int, 1)
	go func() { status <- getJSON(t, srv.URL+"/api/v1/runs/"+sum.Admitted[0], &e) }()
	// The read really waits on the lock in the database.
	waited := false
	for !waited {
		select {
		case st := <-status:
			t.Fatalf("the read answered %d %+v before waiting on the lock", st, e)
		case <-time.After(10 * time.Millisecond):
		}
		waited = env.Int(t, `SELECT count(*) FROM pg_locks WHERE relation = 'qinglong.run_events'::regclass AND NOT granted`) > 0
	}
	if st := <-status; st != 504 || e.Error.Code != "timeout" {
		t.Fatalf("read behind a lock: %d %+v; want 504 timeout", st, e)
	}
	if !latch.Available() {
		t.Fatal("a request's own timeout tripped the availability latch")
	}
	var probe struct{ Status string }
	if st := getJSON(t, srv.URL+"/readyz", &probe); st != 200 || probe.Status != "ready" {
		t.Fatalf("readyz %d %+v after a request timeout", st, probe)
	}
	if err := lock.Rollback(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The read after the release gets the same 300 ms as the one before: on
	// a loaded machine one may time out on its own, so a few tries are
	// allowed; a replica left unavailable would answer none of them.
	var detail struct{ Run struct{ ID string } }
	st := getJSON(t, srv.URL+"/api/v1/runs/"+sum.Admitted[0], &detail)
	for try := 1; st == 504 && try < 20; try++ {
		st = getJSON(t, srv.URL+"/api/v1/runs/"+sum.Admitted[0], &detail)
	}
	if st != 200 || detail.Run.ID != sum.Admitted[0] {
		t.Fatalf("read after the lock was released: %d %+v", st, detail)
	}
}
