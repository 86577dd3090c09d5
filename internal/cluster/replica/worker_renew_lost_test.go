package replica

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A worker given a single --server keeps its attempt's lease when one
// renewal is lost: at the shortest run lease (3 s), the first renewal
// that reaches the proxy in front of the only replica is held, never
// forwarded, until the worker gives it up (a replica that took the request
// and never answered); the worker sends it again to the same replica
// within the lease, the command runs on across the renewals after it, and
// the Run succeeds on its one attempt, the worker never saying it lost
// the lease.
func TestASingleServerWorkerKeepsItsLeaseWhenOneRenewalIsLost(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	env.Apply(t, fmt.Sprintf(`project: renewing
tasks:
  - name: job
    script: "sleep 5"
triggers:
  - {name: t0, task: job, cron: %q, timezone: UTC}
`, clustertest.QuietCron()))
	f := metricsReplicaFlags(env, "replica-renew-lost")
	f.RunLease = MinRunLease
	p := serveInProcess(t, f)
	p.awaitReady(t)
	workerAddr, _ := p.logs.withCode(CodeWorkerListening)[0]["addr"].(string)
	target, err := url.Parse("http://" + workerAddr)
	if err != nil {
		t.Fatal(err)
	}
	forward := httputil.NewSingleHostReverseProxy(target)
	// The worker cancels the sends of a renewal still open once one of
	// them is answered, and its pulls as it stops: no error, though the
	// proxy would print each.
	forward.ErrorLog = log.New(io.Discard, "", 0)
	var mu sync.Mutex
	var lost, givenUp, renewedAfter int
	var held time.Duration
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == workerproto.PathRenew {
			mu.Lock()
			first := lost == 0
			if first {
				lost++
			} else if givenUp > 0 {
				renewedAfter++
			}
			mu.Unlock()
			if first {
				// Read whole, so the server watches the connection and
				// the request's context ends when the worker drops it.
				_, _ = io.Copy(io.Discard, r.Body)
				came := time.Now()
				select {
				case <-r.Context().Done():
					mu.Lock()
					givenUp++
					held = time.Since(came)
					mu.Unlock()
				case <-time.After(time.Minute):
				}
				return
			}
		}
		forward.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)

	logs, stop := runLoggedAgent(t, proxy.URL, env.WorkerCredential(t, "single", nil, 1))
	eventually(t, 30*time.Second, "the worker to register", func() bool { return len(logs.withCode("worker_registered")) == 1 })
	env.MakeDue(t, 1000)
	eventually(t, time.Minute, "the Run to end", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')`) == 1
	})
	stop()
	mu.Lock()
	defer mu.Unlock()
	if lost != 1 || givenUp != 1 || renewedAfter == 0 {
		t.Fatalf("%d renewals held and %d of them given up by the worker, %d forwarded after; want one lost renewal the worker gave up, and renewals after it", lost, givenUp, renewedAfter)
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.runs r JOIN qinglong.attempts a ON a.run_id = r.id
	                     WHERE r.state = 'succeeded' AND a.state = 'succeeded'`); n != 1 {
		t.Fatalf("%d succeeded Runs with a succeeded attempt; want the one Run, on its one attempt:\n%s", n, logs)
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.attempts`); n != 1 {
		t.Fatalf("%d attempts; want one, its lease kept", n)
	}
	t.Logf("the lost renewal was given up after %v of a %v lease", held, f.RunLease)
	if strings.Contains(logs.String(), "attempt_lease_lost") {
		t.Fatalf("the worker says it lost the lease:\n%s", logs)
	}
}
