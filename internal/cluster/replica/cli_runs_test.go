package replica

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// fakeWorker drives the worker API the way `ql worker` does, in process.
type fakeWorker struct {
	rt      *pgstore.Runtime
	id      pgstore.WorkerIdentity
	session string
}

func newFakeWorker(t *testing.T, env *clustertest.Env, rt *pgstore.Runtime, name string) *fakeWorker {
	t.Helper()
	admin, err := pgstore.OpenAdmin(t.Context(), env.URL(pgstore.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	cred, err := admin.WorkerCreate(t.Context(), name, nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	id, err := rt.AuthenticateWorker(t.Context(), cred)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := rt.RegisterWorker(t.Context(), id, workerproto.RegisterRequest{Capacity: 4, Version: "test"}, pgstore.WorkerSettings{})
	if err != nil {
		t.Fatal(err)
	}
	return &fakeWorker{rt: rt, id: id, session: reg.SessionID}
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

// admitRuns publishes n triggers, admits one run of each and returns the
// run ids, oldest first.
func admitRuns(t *testing.T, env *clustertest.Env, rt *pgstore.Runtime, n int) []string {
	t.Helper()
	env.Apply(t, clustertest.Triggers("cliruns", n, clustertest.QuietCron()))
	env.MakeDue(t, 1000)
	if sum, err := schedule.Round(context.Background(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewID: ids.New}); err != nil || sum.Counts[schedule.Admitted] != n {
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

// lockedBuffer is written by a child's output copier and read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// On the cluster: a queued run is cancelled at once; `runs logs -f` prints
// a worker's chunks in order as they arrive and returns when the run ends;
// `runs show` lists each attempt with its worker, exit code and error.
func TestCLICancelsFollowsLogsAndShowsAttemptsOnTheCluster(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	rt := env.Runtime(t, "cli-runs", 30*time.Second)
	runtimeEnv := []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)}
	runIDs := admitRuns(t, env, rt, 3)
	cancelled, followed, failed := runIDs[0], runIDs[1], runIDs[2]

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
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	offset := int64(0)
	for _, chunk := range []string{"one\n", "two\n", "three\n"} {
		reply, err := rt.AppendAttemptLog(t.Context(), w.id, workerproto.LogRequest{Lease: lease, Offset: offset, Data: []byte(chunk)}, pgstore.WorkerSettings{})
		if err != nil {
			t.Fatalf("append %q: %v", chunk, err)
		}
		offset = reply.LogBytes
		select {
		case got := <-lines:
			if got+"\n" != chunk {
				t.Fatalf("logs -f printed %q; want %q next", got, chunk)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("logs -f did not print %q within 10s of its append; stderr %q", chunk, stderr.String())
		}
	}
	exit := int64(3)
	if _, err := rt.CompleteAttempt(t.Context(), w.id, workerproto.CompleteRequest{Lease: lease, Outcome: workerproto.OutcomeExited, ExitCode: &exit, LogBytes: offset}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(stderr.String(), "(run "+followed+" is failed)") {
			t.Fatalf("logs -f ended with %v, stderr %q; want exit 0 naming the run's end", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("logs -f still runs 10s after the run ended; stderr %q", stderr.String())
	}
	if rest, ok := <-lines; ok {
		t.Fatalf("logs -f printed %q after the last chunk", rest)
	}
	if code, out := runQL(t, bin, runtimeEnv, "runs", "logs", followed); code != 0 || out != "one\ntwo\nthree\n" {
		t.Fatalf("runs logs without -f: exit %d %q", code, out)
	}

	_, lease = w.startOne(t)
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
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || len(d.Attempts) != 1 || d.Attempts[0].Worker != "w-logs" ||
		d.Attempts[0].ExitCode == nil || *d.Attempts[0].ExitCode != 3 || d.Attempts[0].State != "failed" {
		t.Fatalf("runs show -o json: exit %d %q; want the failed attempt with worker w-logs and exit code 3", code, out)
	}
}
