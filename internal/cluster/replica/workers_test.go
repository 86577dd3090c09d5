package replica

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/tlstest"
)

// inProcess is a replica served in the test's own process.
type inProcess struct {
	logs       *logLines
	workerAddr string
	stop       func()
}

// awaitReady waits until the replica has opened admission: its scheduler
// starts, and may admit Runs, before then, and until then its worker
// ingress answers 503.
func (p *inProcess) awaitReady(t *testing.T) {
	t.Helper()
	eventually(t, 30*time.Second, "the replica to open admission", func() bool { return len(p.logs.withCode(CodeReady)) > 0 })
}

// serveInProcess starts serveReplica with f and waits for its listeners.
func serveInProcess(t *testing.T, f cli.ServeFlags) *inProcess {
	t.Helper()
	s, err := settingsFrom(&f)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	logs := &logLines{added: make(chan struct{}, 1)}
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		logs.consume(pr)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- serveReplica(ctx, s, slog.New(slog.NewJSONHandler(pw, &slog.HandlerOptions{Level: slog.LevelDebug})))
	}()
	p := &inProcess{logs: logs}
	var stopped bool
	p.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("serve returned %v after the stop", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("serve did not return within 15s of the stop")
		}
		pw.Close()
		<-consumed
		if t.Failed() {
			t.Logf("replica log:\n%s", logs)
		}
	}
	t.Cleanup(p.stop)
	eventually(t, 10*time.Second, "the worker ingress to listen", func() bool { return len(logs.withCode(CodeWorkerListening)) == 1 })
	p.workerAddr, _ = logs.withCode(CodeWorkerListening)[0]["addr"].(string)
	return p
}

// post sends a JSON body to the worker ingress and returns the status and
// the reply.
func post(t *testing.T, client *http.Client, url, cred string, body any) (int, []byte) {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if cred != "" {
		req.Header.Set("Authorization", "Bearer "+cred)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

func TestTheWorkerIngressAnswersUnavailableWhileTheReplicaIsNotReady(t *testing.T) {
	t.Parallel()
	// Nothing listens at this database address: activation is retried,
	// and the replica never becomes ready.
	f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: "postgres://ql_runtime@127.0.0.1:1/ql?sslmode=disable&connect_timeout=1",
		ReplicaID: "replica-503", HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", StopTimeout: 2 * time.Second}
	p := serveInProcess(t, f)
	eventually(t, 10*time.Second, "a failed activation", func() bool { return len(p.logs.withCode(CodeActivationFailed)) > 0 })
	status, raw := post(t, http.DefaultClient, "http://"+p.workerAddr+workerproto.PathHeartbeat, workerproto.CredentialPrefix+"whatever",
		workerproto.HeartbeatRequest{SessionID: uuid.NewString()})
	var e workerproto.Error
	if err := json.Unmarshal(raw, &e); err != nil || status != http.StatusServiceUnavailable || e.Code != workerproto.CodeUnavailable {
		t.Fatalf("worker request while not ready: %d %s, want 503 %s", status, raw, workerproto.CodeUnavailable)
	}
}

func TestTheWorkerIngressServesTLSOffLoopback(t *testing.T) {
	t.Parallel()
	cert, key := tlstest.WriteCert(t)
	f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: "postgres://ql_runtime@127.0.0.1:1/ql?sslmode=disable&connect_timeout=1",
		ReplicaID: "replica-tls", HTTPAddr: "127.0.0.1:0", WorkerAddr: "0.0.0.0:0", WorkerTLSCert: cert, WorkerTLSKey: key, StopTimeout: 2 * time.Second}
	p := serveInProcess(t, f)
	if tls, _ := p.logs.withCode(CodeWorkerListening)[0]["tls"].(bool); !tls {
		t.Fatalf("the ingress did not report TLS:\n%s", p.logs)
	}
	_, port, _ := net.SplitHostPort(p.workerAddr)
	pem, err := os.ReadFile(cert)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}
	t.Cleanup(client.CloseIdleConnections)
	status, raw := post(t, client, "https://127.0.0.1:"+port+workerproto.PathHeartbeat, "", workerproto.HeartbeatRequest{})
	if status != http.StatusUnauthorized {
		t.Fatalf("over TLS without a credential: %d %s, want 401", status, raw)
	}
	plain := &http.Client{}
	t.Cleanup(plain.CloseIdleConnections)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://127.0.0.1:"+port+workerproto.PathHeartbeat, http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := plain.Do(req); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("plain HTTP to the TLS ingress answered %d", resp.StatusCode)
		}
	}
}

// A grant that is never started is released once its lease expires in
// database time, and the Run is offered again.
func TestTheSweepReleasesAnExpiredUnstartedGrant(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("sweep", 1, clustertest.QuietCron()))
	env.MakeDue(t, 1000)
	admin, err := pgstore.OpenAdmin(t.Context(), env.URL(pgstore.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	cred, err := admin.WorkerCreate(t.Context(), "forgetful", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime), ReplicaID: "replica-sweep", RolePrefix: env.Prefix,
		HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond, StopTimeout: 2 * time.Second, RunLease: MinRunLease}
	p := serveInProcess(t, f)
	eventually(t, 30*time.Second, "the replica to admit the due Run", func() bool { return env.Int(t, `SELECT count(*) FROM qinglong.runs`) == 1 })
	p.awaitReady(t)
	base := "http://" + p.workerAddr
	var reg workerproto.RegisterReply
	if status, raw := post(t, http.DefaultClient, base+workerproto.PathRegister, cred, workerproto.RegisterRequest{Capacity: 1, Version: "test"}); status != http.StatusOK || json.Unmarshal(raw, &reg) != nil {
		t.Fatalf("register: %d %s", status, raw)
	}
	pull := func() workerproto.PullReply {
		token := make([]byte, 32)
		if _, err := rand.Read(token); err != nil {
			t.Fatal(err)
		}
		var reply workerproto.PullReply
		status, raw := post(t, http.DefaultClient, base+workerproto.PathPull, cred, workerproto.PullRequest{
			SessionID: reg.SessionID, OfferID: uuid.NewString(), Token: base64.RawURLEncoding.EncodeToString(token), Max: 1,
			WaitMs: workerproto.MaxPullWait.Milliseconds(),
		})
		if status != http.StatusOK || json.Unmarshal(raw, &reply) != nil {
			t.Fatalf("pull: %d %s", status, raw)
		}
		return reply
	}
	first := pull()
	if len(first.Grants) != 1 {
		t.Fatalf("first pull: %+v, want the Run's grant", first)
	}
	runID := first.Grants[0].RunID
	if state := runState(t, env, runID); state != "dispatching" {
		t.Fatalf("granted Run is %s, want dispatching", state)
	}
	// Heartbeats keep the session alive; only the run lease expires. The
	// long-poll returns the grant once the sweep has released it.
	again := pull()
	if len(again.Grants) != 1 || again.Grants[0].RunID != runID || again.Grants[0].AttemptID != first.Grants[0].AttemptID {
		t.Fatalf("second pull: %+v, want the same Run's Attempt offered again", again)
	}
	released := 0
	for _, rec := range p.logs.withCode(CodeSwept) {
		if n, ok := rec["released"].(float64); ok {
			released += int(n)
		}
	}
	if released != 1 {
		t.Fatalf("the sweep logged %d released grants, want 1:\n%s", released, p.logs)
	}
}

func runState(t *testing.T, env *clustertest.Env, runID string) string {
	t.Helper()
	var state string
	if err := env.Super.QueryRow(context.Background(), `SELECT state FROM qinglong.runs WHERE id = $1`, runID).Scan(&state); err != nil {
		t.Fatal(err)
	}
	return state
}
