package replica

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/worker/agent"
)

// A worker whose only replica stops cleanly and starts again (a restart)
// says so at its first refused request as information — one line naming
// the replica's address, the cause and how often it retries — not as an
// outage, and not again at each of the retries that follow; when the
// replica, started again on the same address, answers, one line says so
// and for how long it did not. Neither holds the credential.
func TestAWorkerWhoseOnlyReplicaRestartsSaysSoOnceAsInformationAndWhenItIsBack(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	cred := env.WorkerCredential(t, "cut-off", nil, 1)
	f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime), ReplicaID: "replica-outage", RolePrefix: env.Prefix,
		HTTPAddr: "127.0.0.1:0", WorkerAddr: unassignedAddr(t), Cadence: 250 * time.Millisecond, StopTimeout: time.Second, RunLease: DefaultRunLease}
	first := serveInProcess(t, f)
	first.awaitReady(t)
	server := "http://" + f.WorkerAddr

	logs, stopWorker := runLoggedAgent(t, server, cred)
	eventually(t, 30*time.Second, "the worker to register", func() bool { return len(logs.withCode("worker_registered")) == 1 })
	// The worker hears the stop through the pull it keeps waiting there.
	eventually(t, 30*time.Second, "the worker's pull to wait at the replica", func() bool {
		return len(first.logs.withCode("ingress.pull_waiting")) > 0
	})

	first.stop()
	eventually(t, 2*time.Second, "the worker to say the replica is restarting", func() bool { return len(logs.withCode("server_restarting")) > 0 })
	said := logs.withCode("server_restarting")[0]
	if said["level"] != "INFO" || said["server"] != server || said["retry_every_ms"] != float64(2000) || said["error"] == nil || said["error"] == "" {
		t.Fatalf("the line is %v; want level INFO, server %s, the cause as error and retry_every_ms 2000", said, server)
	}
	// The worker retries its pull with a pause growing to 2 s: a few
	// seconds are several failed requests, and still one warning.
	time.Sleep(4 * time.Second)
	if n, m := len(logs.withCode("server_restarting")), len(logs.withCode("server_unreachable")); n != 1 || m != 0 {
		t.Fatalf("%d server_restarting and %d server_unreachable lines within 4 s of the restart; want one and none (a warning only past 30 s):\n%s", n, m, logs)
	}
	for _, code := range []string{"pull_failed", "heartbeat_failed"} {
		if n := len(logs.withCode(code)); n != 0 {
			t.Fatalf("%d %s lines: a request that got no answer is said by server_unreachable, once:\n%s", n, code, logs)
		}
	}

	second := serveInProcess(t, f)
	second.awaitReady(t)
	// A pull that reaches the replica again waits there for work; the
	// heartbeat the outage started is answered at once, within a retry.
	eventually(t, 4*time.Second, "the worker to say the replica answers again", func() bool { return len(logs.withCode("server_reachable")) > 0 })
	back := logs.withCode("server_reachable")[0]
	gone, _ := back["unreachable_for_ms"].(float64)
	if back["level"] != "INFO" || back["server"] != server || gone < 4000 {
		t.Fatalf("the line saying the replica is back is %v; want level INFO, server %s and unreachable_for_ms at least 4000", back, server)
	}
	if failed, _ := back["failed_requests"].(float64); failed < 3 {
		t.Fatalf("the worker counted %v failed requests in the outage; want several retries behind the one line", back["failed_requests"])
	}
	stopWorker()
	second.stop()

	if strings.Contains(logs.String(), cred) {
		t.Fatal("the worker's log holds its credential")
	}
}

// unassignedAddr is a free loopback address whose port lies below the
// kernel's ephemeral range, so no connection or listener of another test
// is given it while the replica bound to it is down: a port of that range,
// freed by the stop, was seen taken before the restart could bind it.
func unassignedAddr(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Fatal(err)
	}
	low, err := strconv.Atoi(strings.Fields(string(raw))[0])
	if err != nil {
		t.Fatal(err)
	}
	const from = 10000
	if low <= from+1000 {
		t.Fatalf("the ephemeral port range starts at %d: no port below it is left for a listener to bind again", low)
	}
	for range 100 {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(from+rand.IntN(low-from)))
		if l, err := net.Listen("tcp", addr); err == nil {
			l.Close()
			return addr
		}
	}
	t.Fatalf("no free port in %d–%d", from, low-1)
	return ""
}

// A replica that stops cleanly (a rolling restart, a scale-down) while a
// worker long-polls it tells the worker so: the worker says once, as
// information, that it moves to its next --server, and goes on there —
// no "no answer" warning and no "answers again" line, which a stop is
// not, and a Run queued after the stop is run through the other replica.
func TestAWorkerWhoseReplicaStopsCleanlyMovesToTheNextWithoutAWarning(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	env.Apply(t, fmt.Sprintf(`project: moved
tasks:
  - name: job
    script: "true"
triggers:
  - {name: t0, task: job, cron: %q, timezone: UTC}
`, clustertest.QuietCron()))
	cred := env.WorkerCredential(t, "moving", nil, 1)
	flags := func(id string) cli.ServeFlags {
		return cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime), ReplicaID: id, RolePrefix: env.Prefix,
			HTTPAddr: "127.0.0.1:0", WorkerAddr: unassignedAddr(t), Cadence: 250 * time.Millisecond, StopTimeout: time.Second, RunLease: DefaultRunLease}
	}
	stopping, staying := flags("replica-stopping"), flags("replica-staying")
	first, second := serveInProcess(t, stopping), serveInProcess(t, staying)
	first.awaitReady(t)
	second.awaitReady(t)
	server := "http://" + stopping.WorkerAddr

	logs, _ := runLoggedAgent(t, server+",http://"+staying.WorkerAddr, cred)
	eventually(t, 30*time.Second, "the worker to register", func() bool { return len(logs.withCode("worker_registered")) == 1 })
	// Stopped while the worker's pull waits on it, as a worker always has
	// one outstanding: stopped between its registration and its first
	// pull, the replica's listener is closed when the pull comes, and a
	// refused connection is an outage to the worker.
	eventually(t, 30*time.Second, "the worker's pull to wait at the replica that stops", func() bool {
		return len(first.logs.withCode("ingress.pull_waiting")) > 0
	})

	first.stop()
	eventually(t, 5*time.Second, "the worker to say the replica stops", func() bool { return len(logs.withCode("server_stopping")) > 0 })
	said := logs.withCode("server_stopping")[0]
	if said["level"] != "INFO" || said["server"] != server || !strings.Contains(said["msg"].(string), "next --server") {
		t.Fatalf("the line saying the replica stops is %v; want level INFO, server %s and that the worker moves to the next --server", said, server)
	}
	env.MakeDue(t, 1000)
	eventually(t, 30*time.Second, "the Run queued after the stop to succeed", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE state = 'succeeded'`) == 1
	})
	for _, code := range []string{"server_unreachable", "server_reachable"} {
		if n := len(logs.withCode(code)); n != 0 {
			t.Fatalf("%d %s lines after a clean stop of one of two replicas; want none:\n%s", n, code, logs)
		}
	}
	if n := len(logs.withCode("server_stopping")); n != 1 {
		t.Fatalf("%d server_stopping lines; want one per stop:\n%s", n, logs)
	}
}

// runLoggedAgent runs a worker with one slot against servers in the test's
// process, its JSON log in logs, until stop (or the test's end) stops it,
// which fails the test if the worker returned an error and shows its log
// if the test failed.
func runLoggedAgent(t *testing.T, servers, cred string) (logs *logLines, stop func()) {
	t.Helper()
	logs, log, done := capturedLogs()
	// Made before the stop is registered: cleanups run last first, and a
	// directory removed under the running worker fails its journal.
	dataDir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() {
		_, err := agent.Run(ctx, agent.Config{Server: servers, Credential: cred, DataDir: dataDir, Concurrency: 1,
			StopTimeout: 2 * time.Second, Version: "test", Logger: log})
		ran <- err
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-ran; err != nil {
				t.Errorf("the worker returned %v after the stop", err)
			}
			done()
			if t.Failed() {
				t.Logf("worker log:\n%s", logs)
			}
		})
	}
	t.Cleanup(stop)
	return logs, stop
}
