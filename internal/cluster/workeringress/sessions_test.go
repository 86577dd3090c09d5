package workeringress

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/workerproto"
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
