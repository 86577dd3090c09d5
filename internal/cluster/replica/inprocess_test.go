package replica

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// The supervisor in this test's own process, so -race sees the activation
// swap against concurrent API requests, readiness probes and the stop.
func TestTheSupervisorReactivatesInProcessUnderConcurrentRequests(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("inproc", 20, "* * * * * *"))
	f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime), ReplicaID: "replica-in",
		RolePrefix: env.Prefix, HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond, StopTimeout: 2 * time.Second}
	s, err := settingsFrom(&f)
	if err != nil {
		t.Fatal(err)
	}
	logs, log, logged := capturedLogs()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- serveReplica(ctx, s, log) }()
	eventually(t, 30*time.Second, "the first activation", func() bool { return len(logs.withCode(CodeReady)) == 1 })
	addr, _ := logs.withCode(CodeListening)[0]["addr"].(string)

	token := env.Token(t, "inproc", apitoken.Read)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for _, path := range []string{"/readyz", "/api/v1/runs", "/api/v1/triggers"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				req, err := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
				if err != nil {
					panic(err)
				}
				req.Header.Set("Authorization", "Bearer "+token)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}()
	}
	// Worker requests through the swap: each takes the live activation's
	// store or answers 503, and none may find a pool closed under it (an
	// internal error, 500). A known credential, so the address's limit of
	// failed authentications never answers for the database (429), paced
	// under the worker's own request rate for the same reason; its
	// heartbeats name a session that does not exist, which only the
	// database can say (404).
	credential := env.WorkerCredential(t, "inproc-worker", nil, 1)
	heartbeat := fmt.Sprintf(`{"sessionId":%q}`, ids.New())
	workerAddr, _ := logs.withCode(CodeWorkerListening)[0]["addr"].(string)
	var statusMu sync.Mutex
	statuses := map[int]int{}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			time.Sleep(5 * time.Millisecond)
			req, err := http.NewRequest(http.MethodPost, "http://"+workerAddr+workerproto.PathHeartbeat, strings.NewReader(heartbeat))
			if err != nil {
				panic(err)
			}
			req.Header.Set("Authorization", "Bearer "+credential)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
				statusMu.Lock()
				statuses[resp.StatusCode]++
				statusMu.Unlock()
			}
		}
	}()
	eventually(t, 10*time.Second, "worker requests to reach the database", func() bool {
		statusMu.Lock()
		defer statusMu.Unlock()
		return statuses[http.StatusNotFound] >= 10
	})
	eventually(t, 10*time.Second, "a backend to terminate", func() bool { return len(backends(t, env, "replica-in")) > 0 })
	before := backends(t, env, "replica-in")
	terminateBackends(t, env, "replica-in")
	eventually(t, 30*time.Second, "a fresh activation", func() bool {
		return len(logs.withCode(CodeReady)) == 2 && newBackend(t, env, "replica-in", before)
	})
	close(stop)
	wg.Wait()
	statusMu.Lock()
	for status, n := range statuses {
		if status != http.StatusNotFound && status != http.StatusServiceUnavailable {
			t.Errorf("%d worker requests answered %d; want only 404 (the session does not exist) or 503 (between activations)", n, status)
		}
	}
	if statuses[http.StatusNotFound] == 0 {
		t.Errorf("no worker request reached the database (statuses %v)", statuses)
	}
	statusMu.Unlock()
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve returned %v after the stop", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not return within 10s of the stop")
	}
	// The last records may still be in the reader's hands when the write
	// returns; count them only once the consumer has seen the end.
	logged()
	if len(logs.withCode(CodeDeactivated)) != 1 || len(logs.withCode(CodeStopped)) != 1 {
		t.Fatalf("want one deactivation and one stop:\n%s", logs)
	}
}
