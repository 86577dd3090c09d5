package replica

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/cmdbuild"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

func TestMain(m *testing.M) { os.Exit(cmdbuild.Run(m, pgtest.Run)) }

// buildQL is cmd/ql, built once for the package's tests.
func buildQL(t *testing.T) string { return cmdbuild.Binary(t, "ql") }

// logLines collects a child's JSON log lines.
type logLines struct {
	mu    sync.Mutex
	lines []map[string]any
	raw   bytes.Buffer
	added chan struct{}
}

func (l *logLines) consume(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec map[string]any
		l.mu.Lock()
		l.raw.Write(sc.Bytes())
		l.raw.WriteByte('\n')
		if json.Unmarshal(sc.Bytes(), &rec) == nil {
			l.lines = append(l.lines, rec)
		}
		l.mu.Unlock()
		select {
		case l.added <- struct{}{}:
		default:
		}
	}
}

// capturedLogs is a JSON logger whose lines are read into logs as they
// are written; done closes its writer and returns once every line written
// is read, so the logs are whole.
func capturedLogs() (logs *logLines, log *slog.Logger, done func()) {
	pr, pw := io.Pipe()
	logs = &logLines{added: make(chan struct{}, 1)}
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		logs.consume(pr)
	}()
	return logs, slog.New(slog.NewJSONHandler(pw, nil)), func() {
		_ = pw.Close()
		<-consumed
	}
}

// serveUntilItStops serves s, its JSON log read into logs, until the
// replica stops of itself or 30 s pass (timedOut): for a replica that must
// give up at once, e.g. on a database it can never use.
func serveUntilItStops(s settings) (logs *logLines, err error, timedOut bool) {
	logs, log, done := capturedLogs()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = serveReplica(ctx, s, log)
	done()
	return logs, err, ctx.Err() != nil
}

// withCode returns the records carrying code, in order.
func (l *logLines) withCode(code string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, rec := range l.lines {
		if rec["code"] == code {
			out = append(out, rec)
		}
	}
	return out
}

// codes returns every record's code, in order.
func (l *logLines) codes() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.lines))
	for _, rec := range l.lines {
		code, _ := rec["code"].(string)
		out = append(out, code)
	}
	return out
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.raw.String()
}

// child is one `ql serve --profile cluster` child process.
type child struct {
	owner string
	cmd   *exec.Cmd
	logs  *logLines
	done  chan struct{}
	addr  string
}

// startReplica starts a replica on env's runtime role and waits until its
// HTTP listener is bound.
func startReplica(t *testing.T, bin string, env *clustertest.Env, owner string, extra ...string) *child {
	t.Helper()
	return startReplicaOn(t, bin, env, env.URL(pgstore.RoleRuntime), owner, extra...)
}

// startReplicaOn is startReplica with the database URL given (through the
// environment, as an operator must give a URL holding a password).
func startReplicaOn(t *testing.T, bin string, env *clustertest.Env, dbURL, owner string, extra ...string) *child {
	t.Helper()
	args := append([]string{"serve", "--profile", "cluster", "--replica-id", owner, "--http-addr", "127.0.0.1:0",
		"--worker-addr", "127.0.0.1:0", "--role-prefix", env.Prefix}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "QL_DATABASE_URL="+dbURL, "QL_HTTP_ADDR=", "QL_WORKER_ADDR=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	r := &child{owner: owner, cmd: cmd, logs: &logLines{added: make(chan struct{}, 1)}, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r.logs.consume(stderr)
		_ = cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-r.done
		if t.Failed() {
			t.Logf("replica %s log:\n%s", owner, r.logs)
		}
	})
	rec := r.await(t, CodeListening, 30*time.Second)
	r.addr, _ = rec["addr"].(string)
	return r
}

// await waits for the first record with code, or fails when the process
// exits or the timeout passes.
func (r *child) await(t *testing.T, code string, timeout time.Duration) map[string]any {
	t.Helper()
	deadline := time.After(timeout)
	for {
		if recs := r.logs.withCode(code); len(recs) > 0 {
			return recs[0]
		}
		select {
		case <-r.logs.added:
		case <-r.done:
			if recs := r.logs.withCode(code); len(recs) > 0 {
				return recs[0]
			}
			t.Fatalf("replica %s exited (%v) before logging %s:\n%s", r.owner, r.cmd.ProcessState, code, r.logs)
		case <-deadline:
			t.Fatalf("replica %s did not log %s within %s:\n%s", r.owner, code, timeout, r.logs)
		}
	}
}

// signal sends sig and waits for the process to exit, returning when it
// sent it.
func (r *child) signal(t *testing.T, sig syscall.Signal, timeout time.Duration) (sent time.Time) {
	t.Helper()
	sent = time.Now()
	if err := r.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.done:
	case <-time.After(timeout):
		t.Fatalf("replica %s still running %s after %v", r.owner, timeout, sig)
	}
	return sent
}

// readyz returns /readyz's status code and reason.
func (r *child) readyz(t *testing.T) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + r.addr + "/readyz")
	if err != nil {
		t.Fatalf("readyz of %s: %v", r.owner, err)
	}
	defer resp.Body.Close()
	var body struct{ Reason string }
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body.Reason
}

// eventually polls cond until it holds or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		case <-tick.C:
		}
	}
}

// backends lists the PostgreSQL backend pids serving a replica, found by
// the application_name the replica sets.
func backends(t *testing.T, env *clustertest.Env, owner string) []int32 {
	t.Helper()
	rows, err := env.Super.Query(context.Background(), `SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = $1 ORDER BY pid`, "qinglong:"+owner)
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

// admittedTotal sums the admitted counts of a replica's round records.
func admittedTotal(l *logLines) int64 {
	var n int64
	for _, rec := range l.withCode("scheduler.round") {
		if v, ok := rec["admitted"].(float64); ok {
			n += int64(v)
		}
	}
	return n
}

func fmtPids(p []int32) string { return strings.Trim(fmt.Sprint(p), "[]") }
