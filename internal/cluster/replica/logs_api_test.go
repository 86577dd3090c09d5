package replica

import (
	"bytes"
	"crypto/rand"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// qlRun is one `ql` child: its exit code and what it printed where.
type qlRun struct {
	code     int
	out, err string
}

// startQL starts bin with args and env, and returns its stdout as it
// grows and a wait for its end.
func startQL(t *testing.T, bin string, env []string, args ...string) (*syncbuf.Buffer, func() qlRun) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "QL_DATABASE_URL=", "QL_HTTP_ADDR=", "QL_API_URL=", "QL_TOKEN="), env...)
	var out, errOut syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	return &out, func() qlRun {
		t.Helper()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("ql %v still runs after 30s; stderr %q", args, errOut.String())
		}
		return qlRun{cmd.ProcessState.ExitCode(), out.String(), errOut.String()}
	}
}

// On the cluster, `runs logs` given a replica's --api-url (a read token)
// prints what it prints on the database, byte for byte, with the same
// messages: following a Run as a worker's chunks arrive, past the API's
// answer size, across its retry to its end; once, of each attempt, of a
// log cut at its cap; and for an attempt that does not exist. The replica
// reads the log through its live activation.
func TestRunsLogsOverAReplicasAPIPrintsWhatTheDatabasePathPrints(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	rt := env.Runtime(t, "logs-api", 30*time.Second)
	admitRuns(t, env, rt, 2)
	rep := startReplica(t, bin, env, "replica-logs-api")
	rep.await(t, CodeReady, 30*time.Second)
	onDB := []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)}
	overAPI := []string{"QL_TOKEN=" + env.Token(t, "logs", apitoken.Read), "QL_API_URL=http://" + rep.addr}

	w := newFakeWorker(t, env, rt, "w-api-logs")
	g, lease := w.startOne(t)
	followed := g.RunID
	want := []byte("one\x1b[2J\r\n")
	offset, _ := w.appendLog(t, lease, 0, string(want), pgstore.WorkerSettings{})
	remoteOut, remoteEnd := startQL(t, bin, overAPI, "runs", "logs", "-f", followed)
	localOut, localEnd := startQL(t, bin, onDB, "runs", "logs", "-f", followed)
	printed := func(n int) func() bool {
		return func() bool { return len(remoteOut.String()) >= n && len(localOut.String()) >= n }
	}
	eventually(t, 20*time.Second, "both followers to print the first chunk", printed(len(want)))
	// More than an answer of the API holds, in the worker's largest chunks.
	big := make([]byte, 1<<20+300<<10)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	for rest := big; len(rest) > 0; {
		n := min(len(rest), workerproto.MaxLogChunk)
		offset, _ = w.appendLog(t, lease, offset, string(rest[:n]), pgstore.WorkerSettings{})
		want, rest = append(want, rest[:n]...), rest[n:]
	}
	eventually(t, 20*time.Second, "both followers to print the big chunks", printed(len(want)))
	if reply := w.exit(t, lease, 3, offset); reply.RunState != string(run.RetryWait) {
		t.Fatalf("the first attempt's failure left the run %s; want retry_wait", reply.RunState)
	}
	eventually(t, 20*time.Second, "the retry to be queued", func() bool {
		_, _ = rt.SweepLeases(t.Context(), 16)
		d, err := rt.RunGet(t.Context(), followed)
		return err == nil && d.Run.State == run.Queued
	})
	g, lease = w.startOne(t)
	if g.RunID != followed || g.AttemptNumber != 2 {
		t.Fatalf("second grant: run %s attempt %d; want attempt 2 of %s", g.RunID, g.AttemptNumber, followed)
	}
	offset, _ = w.appendLog(t, lease, 0, "three\n", pgstore.WorkerSettings{})
	want = append(want, "three\n"...)
	w.exit(t, lease, 0, offset)
	remote, local := remoteEnd(), localEnd()
	if local.code != 0 || !bytes.Equal([]byte(local.out), want) || !strings.Contains(local.err, "(attempt 2 started: "+g.AttemptID+")") ||
		!strings.HasSuffix(local.err, "(run "+followed+" ended: succeeded)\n") {
		t.Fatalf("logs -f on the database: exit %d, %d bytes (want %d), stderr %q; want both attempts' output, the retry and the end said", local.code, len(local.out), len(want), local.err)
	}
	if remote != local {
		t.Fatalf("logs -f over the API: exit %d, %d bytes, stderr %q; want what the database path printed: exit %d, %d bytes, stderr %q",
			remote.code, len(remote.out), remote.err, local.code, len(local.out), local.err)
	}

	g, lease = w.startOne(t)
	truncated := g.RunID
	offset, _ = w.appendLog(t, lease, 0, "0123456789abcdef", pgstore.WorkerSettings{LogCap: 10})
	w.exit(t, lease, 0, offset)
	for _, args := range [][]string{
		{followed}, {followed, "--attempt", "1"}, {followed, "--attempt", "2"}, {followed, "-f", "--attempt", "1"}, {followed, "--attempt", "3"},
		{truncated}, {truncated, "-f"},
	} {
		args = append([]string{"runs", "logs"}, args...)
		_, localEnd := startQL(t, bin, onDB, args...)
		_, remoteEnd := startQL(t, bin, overAPI, args...)
		local, remote := localEnd(), remoteEnd()
		if remote != local || (local.code != 0) != slices.Contains(args, "3") || (args[2] == truncated) != strings.Contains(local.err, "(output was truncated at the log size cap)") {
			t.Errorf("ql %v over the API: exit %d, %d bytes, stderr %q; want what the database path printed: exit %d, %d bytes, stderr %q",
				args, remote.code, len(remote.out), remote.err, local.code, len(local.out), local.err)
		}
	}
}
