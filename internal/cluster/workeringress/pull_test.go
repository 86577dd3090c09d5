package workeringress

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// pullAsync posts a pull and delivers its reply.
func (f *fixture) pullAsync(t *testing.T, cred string, req workerproto.PullRequest) <-chan workerproto.PullReply {
	t.Helper()
	out := make(chan workerproto.PullReply, 1)
	go func() {
		status, raw, _ := f.post(t, cred, workerproto.PathPull, req)
		var reply workerproto.PullReply
		if status != http.StatusOK || json.Unmarshal(raw, &reply) != nil {
			t.Errorf("pull: %d %s", status, raw)
		}
		out <- reply
	}()
	return out
}

// waitingPulls waits until n pulls in all have started to wait.
func (f *fixture) waitingPulls(t *testing.T, n int) {
	t.Helper()
	eventually(t, 10*time.Second, "a pull to wait", func() bool { return f.logs.count(CodePullWaiting) >= n })
}

func awaitReply(t *testing.T, ch <-chan workerproto.PullReply, within time.Duration) workerproto.PullReply {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(within):
		t.Fatalf("the pull did not answer within %s", within)
		return workerproto.PullReply{}
	}
}

// A waiting pull only asks the database again when woken or at its bound,
// and at its bound it answers what it has: so a grant in its reply before
// the bound proves the admission's wake reached it.
func TestALongPollIsWokenByALocalAdmission(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred := f.worker(t, "idle")
	session := f.register(t, cred).SessionID
	reply := f.pullAsync(t, cred, pullRequest(t, session, workerproto.MaxPullWait.Milliseconds()))
	f.waitingPulls(t, 1)
	f.admit(t, f.rt, "wake-local", 1, f.h.Wake)
	got := awaitReply(t, reply, workerproto.MaxPullWait/2)
	if len(got.Grants) != 1 {
		t.Fatalf("woken pull answered %+v, want the admitted Run's grant", got)
	}
}

func TestALongPollIsWokenByANotificationFromAnotherReplica(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	f.listen(t)
	cred := f.worker(t, "remote")
	session := f.register(t, cred).SessionID
	reply := f.pullAsync(t, cred, pullRequest(t, session, workerproto.MaxPullWait.Milliseconds()))
	f.waitingPulls(t, 1)
	other := f.env.Runtime(t, "other-replica", 30*time.Second)
	f.admit(t, other, "wake-remote", 1, func() {
		if err := other.NotifyRunsQueued(context.Background()); err != nil {
			t.Errorf("notify: %v", err)
		}
	})
	got := awaitReply(t, reply, workerproto.MaxPullWait/2)
	if len(got.Grants) != 1 {
		t.Fatalf("pull after another replica's admission answered %+v, want its grant", got)
	}
}

// The listener's connection is lost (its backend terminated): it is
// restarted, and notifications wake pulls again.
func TestTheListenerIsRestartedAfterItsConnectionIsLost(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Listen(ctx, f.listenRunsQueued, f.h.Notified, slog.New(slog.NewJSONHandler(logs, nil)))
	}()
	t.Cleanup(func() { cancel(); <-done })
	first := listeners(t, f, 1)[0]
	f.env.Exec(t, `SELECT pg_terminate_backend($1)`, first)
	eventually(t, 10*time.Second, "the listener to restart on a new connection", func() bool {
		pids := listenerPids(t, f)
		return len(pids) == 1 && pids[0] != first
	})
	if logs.count(CodeListenerLost) != 1 {
		t.Fatalf("want one %s record:\n%s", CodeListenerLost, logs)
	}
	cred := f.worker(t, "after-restart")
	session := f.register(t, cred).SessionID
	reply := f.pullAsync(t, cred, pullRequest(t, session, workerproto.MaxPullWait.Milliseconds()))
	f.waitingPulls(t, 1)
	other := f.env.Runtime(t, "other-replica", 30*time.Second)
	f.admit(t, other, "wake-restarted", 1, func() {
		if err := other.NotifyRunsQueued(context.Background()); err != nil {
			t.Errorf("notify: %v", err)
		}
	})
	if got := awaitReply(t, reply, workerproto.MaxPullWait/2); len(got.Grants) != 1 {
		t.Fatalf("pull after the listener's restart answered %+v, want the grant", got)
	}
}

// listenerPids are the backends listening on this database.
func listenerPids(t *testing.T, f *fixture) []int32 {
	t.Helper()
	rows, err := f.env.Super.Query(context.Background(), `SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND query ILIKE 'listen%' AND pid <> pg_backend_pid() ORDER BY pid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var pids []int32
	for rows.Next() {
		var pid int32
		if err := rows.Scan(&pid); err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// listeners waits until n backends listen, and returns them.
// listen runs the replica's runs-queued listener for the fixture's
// ingress, as a replica does, until the test ends.
func (f *fixture) listen(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Listen(ctx, f.listenRunsQueued, f.h.Notified, slog.New(slog.DiscardHandler))
	}()
	t.Cleanup(func() { cancel(); <-done })
	listeners(t, f, 1)
}

func listeners(t *testing.T, f *fixture, n int) []int32 {
	t.Helper()
	var pids []int32
	eventually(t, 10*time.Second, "the listener's LISTEN", func() bool {
		pids = listenerPids(t, f)
		return len(pids) == n
	})
	return pids
}

func TestALongPollAnswersAtItsBound(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred := f.worker(t, "bounded")
	session := f.register(t, cred).SessionID
	start := time.Now()
	short := awaitReply(t, f.pullAsync(t, cred, pullRequest(t, session, 300)), 10*time.Second)
	if len(short.Grants) != 0 || short.State != workerproto.SessionActive || time.Since(start) < 300*time.Millisecond {
		t.Fatalf("a 300 ms pull with nothing to do answered %+v after %s; want no grant, after its bound", short, time.Since(start))
	}
}

// A stopping replica answers the long-poll waiting on it, and every
// request after, 503 replica_stopping: the worker sends the same pull to
// its next --server at once. An empty 200 would bring its next pull back
// to a listener that may be closed by then, which a worker cannot tell
// from an outage.
func TestAStoppingReplicaSendsItsWaitingPullsAndLaterRequestsToAnother(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred := f.worker(t, "moved")
	session := f.register(t, cred).SessionID
	type answer struct {
		status int
		body   workerproto.Error
	}
	answered := make(chan answer, 1)
	go func() {
		status, raw, _ := f.post(t, cred, workerproto.PathPull, pullRequest(t, session, workerproto.MaxPullWait.Milliseconds()))
		var e workerproto.Error
		_ = json.Unmarshal(raw, &e)
		answered <- answer{status, e}
	}()
	f.waitingPulls(t, 1)
	f.h.Stop()
	select {
	case got := <-answered:
		if got.status != http.StatusServiceUnavailable || got.body.Code != workerproto.CodeReplicaStopping || !strings.Contains(got.body.Message, "another replica") {
			t.Fatalf("the pull waiting at the stop was answered %d %+v; want 503 %s saying to send it to another replica", got.status, got.body, workerproto.CodeReplicaStopping)
		}
	case <-time.After(workerproto.MaxPullWait / 2):
		t.Fatal("the pull waiting at the stop was not answered")
	}
	status, raw, _ := f.post(t, cred, workerproto.PathHeartbeat, workerproto.HeartbeatRequest{SessionID: session})
	var e workerproto.Error
	if err := json.Unmarshal(raw, &e); err != nil || status != http.StatusServiceUnavailable || e.Code != workerproto.CodeReplicaStopping {
		t.Fatalf("a heartbeat after the stop was answered %d %s; want 503 %s", status, raw, workerproto.CodeReplicaStopping)
	}
}

// A grant made after a long-poll wait counts its lease from when the pull
// arrived: the worker counts from when it sent the pull, so a length
// counted from the grant would end the worker's copy of the lease early by
// the whole wait — past already, if the wait was longer than the lease.
// It must still never end after the replica's lease.
func TestAGrantAfterALongPollWaitCountsItsLeaseFromTheRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred := f.worker(t, "waited")
	session := f.register(t, cred).SessionID
	sent := time.Now()
	reply := f.pullAsync(t, cred, pullRequest(t, session, workerproto.MaxPullWait.Milliseconds()))
	f.waitingPulls(t, 1)
	const wait = 1500 * time.Millisecond
	time.Sleep(wait)
	f.admit(t, f.rt, "wait-lease", 1, f.h.Wake)
	got := awaitReply(t, reply, workerproto.MaxPullWait/2)
	answered := time.Now()
	if len(got.Grants) != 1 {
		t.Fatalf("woken pull answered %+v, want one grant", got)
	}
	lease := f.h.settings.RunLease
	g := time.Duration(got.Grants[0].LeaseMs) * time.Millisecond
	if g < lease+wait {
		t.Fatalf("grant lease %s after a pull that waited ≥ %s: the worker's copy would end at least %s early", g, wait, wait)
	}
	if sent.Add(g).After(answered.Add(lease)) {
		t.Fatalf("grant lease %s counted from the send ends after the replica's lease (granted before %s, length %s)", g, answered.Sub(sent), lease)
	}
}

// A worker whose every slot is busy keeps a watch (a pull of max 0)
// waiting: it is granted nothing, however many Runs are queued, and a
// registration of its credential through another replica answers it
// replaced at once, through that replica's notification — so the busy
// worker stops at once instead of at its next renewal or heartbeat.
func TestAWatchIsGrantedNothingAndAnswersItsSessionsReplacementAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	f.listen(t)
	cred := f.worker(t, "busy")
	session := f.register(t, cred).SessionID
	f.admit(t, f.rt, "watched", 1, nil)
	watch := pullRequest(t, session, workerproto.MaxPullWait.Milliseconds())
	watch.Max = 0
	reply := f.pullAsync(t, cred, watch)
	f.waitingPulls(t, 1)

	other := f.env.Runtime(t, "other-replica", 30*time.Second)
	id, err := other.AuthenticateWorker(t.Context(), cred)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.RegisterWorker(t.Context(), id, workerproto.RegisterRequest{Capacity: 2, Version: "test"},
		pgstore.WorkerSettings{RunLease: 30 * time.Second, LogCap: workerproto.DefaultLogCap}); err != nil {
		t.Fatal(err)
	}
	got := awaitReply(t, reply, workerproto.MaxPullWait/2)
	if got.State != workerproto.SessionReplaced || len(got.Grants) != 0 {
		t.Fatalf("the watch answered %+v after its session was replaced, want replaced and no grant", got)
	}
	if n := f.env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE state = 'queued'`); n != 1 {
		t.Fatalf("%d Runs queued after the watch, want the admitted one still queued", n)
	}
}

// watchAnswersAtOnce keeps the watch of a worker whose every slot is
// busy waiting, applies change to the worker through the admin role, and
// returns the watch's answer, which must come before the watch's bound:
// the change wakes it through the listener, as a replacement does.
func watchAnswersAtOnce(t *testing.T, name string, change func(a *pgstore.Admin, ctx context.Context, name string) error) workerproto.PullReply {
	t.Helper()
	f := newFixture(t, Config{})
	f.listen(t)
	cred := f.worker(t, name)
	session := f.register(t, cred).SessionID
	watch := pullRequest(t, session, workerproto.MaxPullWait.Milliseconds())
	watch.Max = 0
	reply := f.pullAsync(t, cred, watch)
	f.waitingPulls(t, 1)
	if err := change(f.admin, t.Context(), name); err != nil {
		t.Fatal(err)
	}
	return awaitReply(t, reply, workerproto.MaxPullWait/2)
}

// A revocation wakes the watch of a worker whose every slot is busy, and
// the watch answers revoked: the worker stops its commands at once rather
// than when its next renewal or heartbeat is refused.
func TestAWatchAnswersItsWorkersRevocationAtOnce(t *testing.T) {
	t.Parallel()
	got := watchAnswersAtOnce(t, "revoked", func(a *pgstore.Admin, ctx context.Context, name string) error {
		_, err := a.WorkerRevoke(ctx, name)
		return err
	})
	if got.State != workerproto.SessionRevoked || len(got.Grants) != 0 {
		t.Fatalf("the watch answered %+v after its worker was revoked, want revoked and no grant", got)
	}
}

// A drain wakes the watch of a worker whose every slot is busy, and the
// watch answers draining: the worker stops pulling at once rather than at
// its next renewal or heartbeat.
func TestAWatchAnswersItsWorkersDrainAtOnce(t *testing.T) {
	t.Parallel()
	got := watchAnswersAtOnce(t, "drained", (*pgstore.Admin).WorkerDrain)
	if got.State != workerproto.SessionDraining || len(got.Grants) != 0 {
		t.Fatalf("the watch answered %+v after its worker was drained, want draining and no grant", got)
	}
}

// A watch is not sent back to the database by Runs queued, which concern
// no worker whose every slot is busy: its session is replaced unseen (no
// listener here), then Runs-queued wakes come, and the watch still answers
// at its bound with what it read when it arrived. So a busy cluster's
// admissions cost nothing per full worker.
func TestAWatchIsNotSentBackToTheDatabaseByRunsQueued(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred := f.worker(t, "full")
	session := f.register(t, cred).SessionID
	watch := pullRequest(t, session, 2000)
	watch.Max = 0
	reply := f.pullAsync(t, cred, watch)
	f.waitingPulls(t, 1)
	id, err := f.rt.AuthenticateWorker(t.Context(), cred)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.rt.RegisterWorker(t.Context(), id, workerproto.RegisterRequest{Capacity: 2, Version: "test"}, f.h.settings); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		f.h.Wake()
	}
	got := awaitReply(t, reply, workerproto.MaxPullWait/2)
	if got.State != workerproto.SessionActive || len(got.Grants) != 0 {
		t.Fatalf("the watch answered %+v: a Runs-queued wake sent it back to the database", got)
	}
	if n := f.logs.count(CodePullWaiting); n != 1 {
		t.Fatalf("the watch waited %d times, want once", n)
	}
}
