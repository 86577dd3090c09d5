package workeringress

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/worker/agent"
)

// Two processes holding one credential: the second registration replaces
// the first session, whose command still runs until that process notices.
// The queued Run waits for it, since the credential's cap counts both.
func TestAttemptsLeasedToAReplacedSessionCountAgainstTheCredentialsMaxConcurrency(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{Settings: pgstore.WorkerSettings{RunLease: 3 * time.Second, LogCap: workerproto.DefaultLogCap}})
	cred, err := f.admin.WorkerCreate(t.Context(), "w4", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	f.admit(t, f.rt, "capped", 2, nil)
	older := f.register(t, cred).SessionID
	pull := pullRequest(t, older, 0)
	var pulled workerproto.PullReply
	f.call(t, cred, workerproto.PathPull, pull, &pulled)
	if len(pulled.Grants) != 1 {
		t.Fatalf("the first session pulled %d grants, want 1", len(pulled.Grants))
	}
	g := pulled.Grants[0]
	var started workerproto.LeaseReply
	f.call(t, cred, workerproto.PathStart, workerproto.StartRequest{Lease: workerproto.Lease{AttemptID: g.AttemptID, Token: pull.Token, LeaseVersion: g.LeaseVersion}}, &started)
	if started.Reply != workerproto.ReplyRenewed {
		t.Fatalf("start: %+v", started)
	}
	leaseEnd := f.now(t) + started.LeaseMs

	newer := f.register(t, cred).SessionID
	var hb workerproto.HeartbeatReply
	f.call(t, cred, workerproto.PathHeartbeat, workerproto.HeartbeatRequest{SessionID: older, Running: 1}, &hb)
	if hb.State != workerproto.SessionReplaced {
		t.Fatalf("the first session is %s after the second registration, want replaced", hb.State)
	}
	f.call(t, cred, workerproto.PathPull, pullRequest(t, newer, 0), &pulled)
	if len(pulled.Grants) != 0 {
		t.Fatalf("the new session was granted %d Runs while the replaced one's attempt is leased, under a max concurrency of 1", len(pulled.Grants))
	}

	// Once the replaced session's lease passes, its slot is the new one's.
	for f.now(t) <= leaseEnd {
		time.Sleep(100 * time.Millisecond)
	}
	f.call(t, cred, workerproto.PathPull, pullRequest(t, newer, 0), &pulled)
	if len(pulled.Grants) != 1 {
		t.Fatalf("the new session was granted %d Runs after the replaced one's lease passed, want 1", len(pulled.Grants))
	}
}

// A worker stopped by SIGTERM drains, ends its session and exits: the
// workers list and the metric's count stop counting it at once, not when
// its session's lease passes.
func TestAWorkerThatStopsCleanlyEndsItsSessionAndIsNoLongerCountedLive(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred := f.worker(t, "clean")
	logs := &syncBuffer{}
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan error, 1)
	dir := t.TempDir() // before the goroutine: removed only after the stop below
	go func() {
		_, err := agent.Run(ctx, agent.Config{Server: f.url, Credential: cred, DataDir: dir, Concurrency: 1,
			StopTimeout: 5 * time.Second, PullWait: time.Second, BaseEnv: []string{"PATH=/usr/bin:/bin"},
			Logger: slog.New(slog.NewJSONHandler(logs, nil))})
		done <- err
	}()
	live := func() (listed, metric int) {
		ws, err := f.admin.WorkerList(t.Context())
		if err != nil || len(ws) != 1 {
			t.Fatalf("workers list: %+v, %v", ws, err)
		}
		c, err := f.rt.WorkerCapacity(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return ws[0].Sessions, c.Sessions
	}
	eventually(t, 20*time.Second, "the worker's session", func() bool {
		listed, metric := live()
		return listed == 1 && metric == 1
	})
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the worker stopped with %v\n%s", err, logs)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the worker did not stop\n%s", logs)
	}
	if listed, metric := live(); listed != 0 || metric != 0 {
		t.Fatalf("after the worker exited, the list counts %d sessions and the metric %d; want 0 (the worker ended its session)\n%s", listed, metric, logs)
	}
}
