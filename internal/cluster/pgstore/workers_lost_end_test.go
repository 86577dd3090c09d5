package pgstore

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// A worker that dies leaves its attempt to the sweep, which ends it lost:
// the attempt, its Run, the Run's end event and the run.finished line all
// end at the worker's last renewal — when the command was last known to
// run — not at the lease's expiry a lease later, nor at the sweep; so
// does the notification of the lost Run.
func TestALostAttemptEndsAtItsWorkersLastRenewal(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projectID, _ := s.admitRuns(t, "lost-end", 1)
	spec := notify.Spec{Channels: []notify.Channel{{Name: "hook", Kind: notify.Webhook, URL: "https://hooks.example/lost"}},
		Rules: []notify.Rule{{On: notify.OnLost, Channel: "hook"}}}
	s.exec(t, `UPDATE qinglong.projects SET notifications = $2 WHERE id = $1`, projectID, notify.EncodeJSON(spec))
	w := s.newWorker(t, "w1", nil, 1)
	l, g := s.started(t, w)
	reply, err := s.runtime.RenewAttempt(t.Context(), w.WorkerIdentity, workerproto.RenewRequest{Lease: l}, testSettings)
	if err != nil || reply.Reply != workerproto.ReplyRenewed {
		t.Fatalf("renew: %+v, %v", reply, err)
	}
	expiresAt := *s.attempt(t, g.AttemptID).ExpiresAtMs
	renewedAt := expiresAt - testSettings.RunLease.Milliseconds()
	s.lapse(t, g.AttemptID)
	res, err := s.runtime.SweepLeases(t.Context(), 10)
	if err != nil || res.Lost != 1 || len(res.Ended) != 1 {
		t.Fatalf("sweep: %+v, %v; want the attempt lost and its Run ended", res, err)
	}
	e := s.endTimes(t, g.AttemptID)
	if e.finished != renewedAt || e.runFinished != renewedAt || e.eventAt != renewedAt {
		t.Errorf("the attempt ended at %d, its Run at %d, its end event at %d; want all at the last renewal %d (the lease expired at %d)",
			e.finished, e.runFinished, e.eventAt, renewedAt, expiresAt)
	}
	a := res.Ended[0].Attempt
	if a.State != run.AttemptLost || a.FinishedAtMs == nil || *a.FinishedAtMs != renewedAt || a.StartedAtMs == nil || *a.StartedAtMs != e.started {
		t.Errorf("the run.finished line's attempt %+v; want lost, from its start %d to the last renewal %d", a, e.started, renewedAt)
	}
	var payload string
	if err := s.super.QueryRow(t.Context(), `SELECT payload FROM qinglong.notification_outbox WHERE run_id = $1`, g.RunID).Scan(&payload); err != nil {
		t.Fatalf("the lost Run's notification: %v", err)
	}
	var p notify.Payload
	if err := json.Unmarshal([]byte(payload), &p); err != nil {
		t.Fatal(err)
	}
	if want := renewedAt - e.started; p.FinishedAt != time.UnixMilli(renewedAt).UTC().Format(notify.StampLayout) || p.DurationMs == nil || *p.DurationMs != want {
		t.Errorf("the notification says it finished at %s after %v ms; want %s after %d ms (the last renewal)", p.FinishedAt, p.DurationMs,
			time.UnixMilli(renewedAt).UTC().Format(notify.StampLayout), want)
	}
}
