package replica

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// fakeWorker drives the worker API the way `ql worker` does, in process.
type fakeWorker struct {
	rt      *pgstore.Runtime
	id      pgstore.WorkerIdentity
	session string
}

func newFakeWorker(t *testing.T, env *clustertest.Env, rt *pgstore.Runtime, name string) *fakeWorker {
	t.Helper()
	id, reg := env.ConnectWorker(t, rt, name, nil, 4)
	return &fakeWorker{rt: rt, id: id, session: reg.SessionID}
}

// appendLog sends chunk at offset and returns the new offset.
func (w *fakeWorker) appendLog(t *testing.T, lease workerproto.Lease, offset int64, chunk string, s pgstore.WorkerSettings) (int64, bool) {
	t.Helper()
	reply, err := w.rt.AppendAttemptLog(t.Context(), w.id, workerproto.LogRequest{Lease: lease, Offset: offset, Data: []byte(chunk)}, s)
	if err != nil {
		t.Fatalf("append %q: %v", chunk, err)
	}
	return reply.LogBytes, reply.Truncated
}

func (w *fakeWorker) exit(t *testing.T, lease workerproto.Lease, code, logBytes int64) workerproto.CompleteReply {
	t.Helper()
	done, err := w.rt.CompleteAttempt(t.Context(), w.id, workerproto.CompleteRequest{Lease: lease, Outcome: workerproto.OutcomeExited, ExitCode: &code, LogBytes: logBytes})
	if err != nil {
		t.Fatal(err)
	}
	return done.CompleteReply
}

// startOne pulls one grant and acknowledges its start.
func (w *fakeWorker) startOne(t *testing.T) (workerproto.Grant, workerproto.Lease) {
	t.Helper()
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	reply, err := w.rt.PullGrants(t.Context(), w.id, workerproto.PullRequest{SessionID: w.session, OfferID: ids.New(), Token: token, Max: 1}, pgstore.WorkerSettings{})
	if err != nil || len(reply.Grants) != 1 {
		t.Fatalf("pull: %+v, %v; want one grant", reply, err)
	}
	g := reply.Grants[0]
	lease := workerproto.Lease{AttemptID: g.AttemptID, Token: token, LeaseVersion: g.LeaseVersion}
	started, err := w.rt.StartAttempt(t.Context(), w.id, workerproto.StartRequest{Lease: lease}, pgstore.WorkerSettings{})
	if err != nil || started.Reply != workerproto.ReplyRenewed {
		t.Fatalf("start: %+v, %v", started, err)
	}
	lease.LeaseVersion = started.LeaseVersion
	return g, lease
}

// admitRuns publishes n triggers of a task retried once after failing,
// admits one run of each and returns the run ids, oldest first.
func admitRuns(t *testing.T, env *clustertest.Env, rt *pgstore.Runtime, n int) []string {
	t.Helper()
	defs := strings.Replace(clustertest.Triggers("cliruns", n, clustertest.QuietCron()),
		"    script: echo hi\n", "    script: echo hi\n    retry: {maxAttempts: 2, on: [failed]}\n", 1)
	if !strings.Contains(defs, "retry:") {
		t.Fatalf("the definitions did not get their retry policy:\n%s", defs)
	}
	env.Apply(t, defs)
	env.MakeDue(t, 1000)
	if sum, err := schedule.Round(context.Background(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil || sum.Counts[schedule.Admitted] != n {
		t.Fatalf("round %v %v", sum.Counts, err)
	}
	runs, _, err := rt.RunList(t.Context(), run.ListParams{Limit: n})
	if err != nil || len(runs) != n {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	out := make([]string, 0, n)
	for _, r := range runs {
		out = append(out, r.ID)
	}
	sort.Strings(out)
	return out
}

type lockedBuffer = syncbuf.Buffer

// On the cluster: a queued run is cancelled at once; `runs logs -f` prints
// a worker's chunks in order as they arrive, across a retry, and returns
// when the run ends, noting a truncated log; `runs show` lists each attempt
// with its worker, exit code and error.
func TestCLICancelsFollowsLogsAndShowsAttemptsOnTheCluster(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	rt := env.Runtime(t, "cli-runs", 30*time.Second)
	runtimeEnv := []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)}
	runIDs := admitRuns(t, env, rt, 4)
	cancelled, followed, failed, truncated := runIDs[0], runIDs[1], runIDs[2], runIDs[3]

	if code, out := runQL(t, bin, runtimeEnv, "runs", "cancel", cancelled); code != 0 || out != "run "+cancelled+": cancelled\n" {
		t.Fatalf("cancel a queued run: exit %d %q", code, out)
	}
	if d, err := rt.RunGet(t.Context(), cancelled); err != nil || d.Run.State != run.Cancelled {
		t.Fatalf("the cancelled run is %+v, %v", d.Run, err)
	}

	w := newFakeWorker(t, env, rt, "w-logs")
	g, lease := w.startOne(t)
	if g.RunID != followed {
		t.Fatalf("the worker was granted run %s; want %s (the cancelled run must never be granted)", g.RunID, followed)
	}
	cmd := exec.Command(bin, "runs", "logs", "-f", followed)
	cmd.Env = append(append(os.Environ(), "QL_HTTP_ADDR="), runtimeEnv...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := outputLines(stdout)
	expect := func(chunk string) {
		t.Helper()
		select {
		case got := <-lines:
			if got+"\n" != chunk {
				t.Fatalf("logs -f printed %q; want %q next", got, chunk)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("logs -f did not print %q within 10s of its append; stderr %q", chunk, stderr.String())
		}
	}
	// Each chunk is printed before the next is written: logs -f follows.
	offset := int64(0)
	for _, chunk := range []string{"one\n", "two\n"} {
		offset, _ = w.appendLog(t, lease, offset, chunk, pgstore.WorkerSettings{})
		expect(chunk)
	}
	if reply := w.exit(t, lease, 3, offset); reply.RunState != string(run.RetryWait) {
		t.Fatalf("the first attempt's failure left the run %s; want retry_wait (the task retries once after failing)", reply.RunState)
	}
	if res, err := rt.SweepLeases(t.Context(), 16); err != nil || res.Requeued != 1 {
		t.Fatalf("sweep: %+v, %v; want the retried run queued again", res, err)
	}
	g, lease = w.startOne(t)
	if g.RunID != followed || g.AttemptNumber != 2 {
		t.Fatalf("second grant: run %s attempt %d; want attempt 2 of %s", g.RunID, g.AttemptNumber, followed)
	}
	offset, _ = w.appendLog(t, lease, 0, "three\n", pgstore.WorkerSettings{})
	expect("three\n")
	w.exit(t, lease, 0, offset)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(stderr.String(), "(run "+followed+" ended: succeeded)") || !strings.Contains(stderr.String(), "(attempt 2 started: "+g.AttemptID+")") {
			t.Fatalf("logs -f ended with %v, stderr %q; want exit 0, the second attempt announced and the run's end", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("logs -f still runs 10s after the run ended; stderr %q", stderr.String())
	}
	if rest, ok := <-lines; ok {
		t.Fatalf("logs -f printed %q after the last chunk", rest)
	}
	if code, out := runQL(t, bin, runtimeEnv, "runs", "logs", followed); code != 0 || out != "three\n" {
		t.Fatalf("runs logs without -f: exit %d %q; want the latest attempt's output", code, out)
	}

	g, lease = w.startOne(t)
	if g.RunID != failed {
		t.Fatalf("third grant is for run %s; want %s", g.RunID, failed)
	}
	if _, err := rt.CompleteAttempt(t.Context(), w.id, workerproto.CompleteRequest{Lease: lease, Outcome: workerproto.OutcomeSpawnFailed,
		ErrorCode: "spawn_failed", ErrorMessage: "exec /opt/missing: no such file\nor directory"}); err != nil {
		t.Fatal(err)
	}
	code, out := runQL(t, bin, runtimeEnv, "runs", "show", failed)
	if code != 0 || !strings.Contains(out, "WORKER") || !strings.Contains(out, "w-logs") ||
		!strings.Contains(out, `spawn_failed: exec /opt/missing: no such file\nor directory`) {
		t.Fatalf("runs show: exit %d %q; want the attempt with its worker and its error on one line", code, out)
	}
	code, out = runQL(t, bin, runtimeEnv, "runs", "show", followed, "-o", "json")
	var d struct {
		Attempts []struct {
			Worker   string
			ExitCode *int64
			State    string
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || len(d.Attempts) != 2 || d.Attempts[0].Worker != "w-logs" ||
		d.Attempts[0].ExitCode == nil || *d.Attempts[0].ExitCode != 3 || d.Attempts[0].State != "failed" || d.Attempts[1].State != "succeeded" {
		t.Fatalf("runs show -o json: exit %d %q; want the failed attempt (worker w-logs, exit code 3) and the succeeded one", code, out)
	}

	g, lease = w.startOne(t)
	if g.RunID != truncated {
		t.Fatalf("fourth grant is for run %s; want %s", g.RunID, truncated)
	}
	offset, cut := w.appendLog(t, lease, 0, "0123456789abcdef", pgstore.WorkerSettings{LogCap: 10})
	if !cut {
		t.Fatal("a 16-byte chunk under a 10-byte cap was not truncated")
	}
	code, out = runQL(t, bin, runtimeEnv, "runs", "cancel", truncated)
	if code != 0 || !strings.Contains(out, "cancellation requested; it is running until the command is stopped") {
		t.Fatalf("cancel a running run: exit %d %q; want the request recorded and the run still running", code, out)
	}
	w.exit(t, lease, 0, offset)
	code, out = runQL(t, bin, runtimeEnv, "runs", "logs", "-f", truncated)
	if code != 0 || !strings.HasPrefix(out, "0123456789\n[qinglong: output truncated at the log cap of 10 bytes") || strings.Contains(out, "abcdef") ||
		!strings.Contains(out, "(output was truncated at the log size cap)") {
		t.Fatalf("logs -f of a truncated log: exit %d %q; want the kept bytes, the marker and the note", code, out)
	}
}

// outputLines sends each line a command prints on out, and closes when out
// does.
func outputLines(out io.Reader) <-chan string {
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return lines
}
