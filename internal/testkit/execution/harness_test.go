package execution

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/cleanstop"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/freeport"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
	"github.com/qinglong/qinglong/internal/testkit/procs"
	"github.com/qinglong/qinglong/internal/worker/journal"
)

// Bounds of the harness's waits; none is an assertion about speed.
const (
	startWithin = 30 * time.Second
	exitWithin  = 30 * time.Second
	pollEvery   = 25 * time.Millisecond
)

// proc is one child process: a replica, a worker or a command's probe.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    <-chan struct{} // closed once the process has exited and been reaped
	state   *os.ProcessState
	// exitedAt is when it was reaped, set before done closes.
	exitedAt time.Time
}

// startProc starts bin with args and env, its output in logPath. The child
// gets SIGKILL if the test process dies, so nothing outlives the tests;
// the test's cleanup kills it too, and prints its log when the test failed.
func startProc(t testing.TB, name, bin string, args, env []string, logPath string) *proc {
	t.Helper()
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close() // the child keeps its own descriptor
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logFile, logFile
	p := &proc{name: name, cmd: cmd, logPath: logPath}
	p.done, err = procs.Start(cmd, func(st *os.ProcessState) { p.state, p.exitedAt = st, time.Now() })
	if err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		if !p.exited() {
			_ = cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("%s log (%s):\n%s", name, logPath, tail(logPath, 40))
		}
	})
	return p
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// kill sends SIGKILL and returns once the kernel reports the process dead
// by that signal, which proves the kill really happened.
func (p *proc) kill(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("SIGKILL %s: %v", p.name, err)
	}
	p.wait(t)
	ws, ok := p.state.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("%s ended with %v, not by SIGKILL", p.name, p.state)
	}
}

// terminate sends SIGTERM and returns the exit state.
func (p *proc) terminate(t testing.TB) *os.ProcessState {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatalf("SIGTERM %s: %v", p.name, err)
	}
	p.wait(t)
	return p.state
}

func (p *proc) wait(t testing.TB) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(exitWithin):
		t.Fatalf("%s still running %v after its signal", p.name, exitWithin)
	}
}

// logCount counts the log lines carrying a stable code.
func (p *proc) logCount(code string) int {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte(`"code":"`+code+`"`))
}

// awaitLog waits until the log holds at least n lines with code.
func (p *proc) awaitLog(t testing.TB, code string, n int, within time.Duration) {
	t.Helper()
	eventually(t, within, fmt.Sprintf("%s to log %s ×%d", p.name, code, n), func() bool {
		if p.exited() && p.logCount(code) < n {
			t.Fatalf("%s exited (%v) before logging %s ×%d:\n%s", p.name, p.state, code, n, tail(p.logPath, 40))
		}
		return p.logCount(code) >= n
	})
}

func tail(path string, lines int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// eventually polls cond until it holds, failing the test after within.
func eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", within, what)
		}
		time.Sleep(pollEvery)
	}
}

// cluster is one migrated database with its roles, and the replicas and
// workers started on it.
type cluster struct {
	env   *clustertest.Env
	admin *pgstore.Admin
	// dir holds logs, credentials, data dirs and what commands write ($OUT).
	dir string
	// tmp is every child's TMPDIR, where a worker makes its commands'
	// fresh working directories: a worker the test kills leaves them
	// behind, and only the test's own directory is sure to be removed.
	tmp       string
	lease     time.Duration
	ql, qlw   string
	procCount int
}

func newCluster(t testing.TB, lease time.Duration) *cluster {
	t.Helper()
	return newClusterIn(t, lease, clustertest.New(t))
}

// newClusterOn is newCluster on a PostgreSQL server of the test's own, for
// a test that stops or restarts it.
func newClusterOn(t testing.TB, lease time.Duration) (*cluster, *pgtest.Srv) {
	t.Helper()
	srv, err := pgtest.StartServer(t.Context(), pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cleanstop.AtCleanup(t, "the PostgreSQL server", 30*time.Second, srv.Stop)
	return newClusterIn(t, lease, clustertest.NewOn(t, srv)), srv
}

func newClusterIn(t testing.TB, lease time.Duration, env *clustertest.Env) *cluster {
	t.Helper()
	ql, qlw := binaries(t)
	admin, err := pgstore.OpenAdmin(t.Context(), env.URL(pgstore.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o700); err != nil {
		t.Fatal(err)
	}
	return &cluster{env: env, admin: admin, dir: dir, tmp: t.TempDir(), lease: lease, ql: ql, qlw: qlw}
}

// out is the directory commands write to ($OUT in their tasks).
func (c *cluster) out() string { return filepath.Join(c.dir, "out") }

func (c *cluster) logPath(name string) string {
	c.procCount++
	return filepath.Join(c.dir, fmt.Sprintf("%s-%d.log", name, c.procCount))
}

// baseEnv is what every child gets: nothing of the test's own QL_*
// settings, and the cluster's own TMPDIR.
func (c *cluster) baseEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "TMPDIR=" + c.tmp, "LANG=C", "TZ=UTC"}
}

// replica is a real `ql serve --profile cluster`.
type replica struct {
	*proc
	httpAddr, workerAddr string
}

func (r *replica) workerURL() string { return "http://" + r.workerAddr }

// startReplica starts a replica with the cluster's run lease and waits
// until it is ready (admission open). Empty addresses pick free ports.
func (c *cluster) startReplica(t testing.TB, name, httpAddr, workerAddr string, extra ...string) *replica {
	t.Helper()
	if httpAddr == "" {
		httpAddr = freeport.Addr(t)
	}
	if workerAddr == "" {
		workerAddr = freeport.Addr(t)
	}
	args := append([]string{"serve", "--profile", "cluster", "--replica-id", name, "--http-addr", httpAddr,
		"--worker-addr", workerAddr, "--role-prefix", c.env.Prefix, "--run-lease", c.lease.String(), "--stop-timeout", "5s"}, extra...)
	env := append(c.baseEnv(), "QL_DATABASE_URL="+c.env.URL(pgstore.RoleRuntime))
	r := &replica{proc: startProc(t, name, c.ql, args, env, c.logPath(name)), httpAddr: httpAddr, workerAddr: workerAddr}
	client := &http.Client{Timeout: time.Second}
	defer client.CloseIdleConnections()
	eventually(t, startWithin, name+" to be ready", func() bool {
		if r.exited() {
			t.Fatalf("%s exited (%v):\n%s", name, r.state, tail(r.logPath, 40))
		}
		resp, err := client.Get("http://" + httpAddr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return r
}

// workerDef is a worker credential and the data dir its processes use.
type workerDef struct {
	name, credFile, dataDir, credential string
}

// newWorker creates a worker credential through the admin role and writes
// it to a 0600 file.
func (c *cluster) newWorker(t testing.TB, name string, maxConcurrency int) *workerDef {
	t.Helper()
	cred, err := c.admin.WorkerCreate(t.Context(), name, nil, maxConcurrency)
	if err != nil {
		t.Fatalf("create worker %s: %v", name, err)
	}
	w := &workerDef{name: name, credFile: filepath.Join(c.dir, name+".cred"), dataDir: filepath.Join(c.dir, name+"-data"), credential: cred}
	if err := os.WriteFile(w.credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

// startWorker starts a real ql-worker on servers (comma-separated ingress
// URLs) and waits until it registered.
func (c *cluster) startWorker(t testing.TB, w *workerDef, servers string, concurrency int, extra ...string) *proc {
	t.Helper()
	args := append([]string{"--server", servers, "--credential-file", w.credFile, "--data-dir", w.dataDir,
		"--concurrency", fmt.Sprint(concurrency), "--stop-timeout", "5s"}, extra...)
	p := startProc(t, w.name, c.qlw, args, c.baseEnv(), c.logPath(w.name))
	p.awaitLog(t, "worker_registered", 1, startWithin)
	return p
}

// apply publishes definitions documents.
func (c *cluster) apply(t testing.TB, docs ...string) { c.env.Apply(t, docs...) }

// awaitSchedulesIdle waits until the scheduler initialised every schedule
// row and holds no claim, so a test can make rows due without racing a
// round (a raced row waits for its claim's expiry).
func (c *cluster) awaitSchedulesIdle(t testing.TB) {
	t.Helper()
	eventually(t, time.Minute, "every schedule row to be initialised and unclaimed", func() bool {
		return c.env.Int(t, `SELECT count(*) FROM qinglong.trigger_schedules WHERE next_fire_at_ms IS NULL OR claim_owner IS NOT NULL`) == 0
	})
}

// runStates counts the Runs by state, for messages.
func (c *cluster) runStates(t testing.TB) string {
	t.Helper()
	var states string
	if err := c.env.Super.QueryRow(context.Background(), `SELECT coalesce(string_agg(state || ' ' || n, ', '), 'none')
		FROM (SELECT state, count(*) n FROM qinglong.runs GROUP BY state ORDER BY state) s`).Scan(&states); err != nil {
		t.Fatal(err)
	}
	return states
}

// nowMs is the database clock.
func (c *cluster) nowMs(t testing.TB) int64 {
	return c.env.Int(t, `SELECT `+pgstore.ClockMsSQL)
}

// fire makes one trigger (of a quiet cron) due now and returns the Run
// its admission created.
func (c *cluster) fire(t testing.TB, triggerName string) string {
	t.Helper()
	before := c.env.Int(t, `SELECT count(*) FROM qinglong.runs r JOIN qinglong.triggers g ON g.id = r.trigger_id WHERE g.name = $1`, triggerName)
	// Only a row the scheduler initialised and holds no claim on: moving a
	// claimed row makes that round's commit race, and the row then waits
	// for the claim's expiry.
	eventually(t, 20*time.Second, "the schedule of "+triggerName+" to be initialised and unclaimed", func() bool {
		tag, err := c.env.Super.Exec(context.Background(), `UPDATE qinglong.trigger_schedules s SET next_fire_at_ms = `+pgstore.ClockMsSQL+` - 1, state_version = state_version + 1
			FROM qinglong.triggers g WHERE g.id = s.trigger_id AND g.name = $1 AND s.next_fire_at_ms IS NOT NULL AND s.claim_owner IS NULL`, triggerName)
		if err != nil {
			t.Fatal(err)
		}
		return tag.RowsAffected() == 1
	})
	var id string
	eventually(t, 20*time.Second, "a Run of "+triggerName, func() bool {
		err := c.env.Super.QueryRow(context.Background(), `SELECT r.id::text FROM qinglong.runs r JOIN qinglong.triggers g ON g.id = r.trigger_id
			WHERE g.name = $1 ORDER BY r.created_at_ms, r.id OFFSET $2 LIMIT 1`, triggerName, before).Scan(&id)
		return err == nil
	})
	return id
}

// runState reads a Run's state.
func (c *cluster) runState(t testing.TB, runID string) string {
	t.Helper()
	var s string
	if err := c.env.Super.QueryRow(context.Background(), `SELECT state FROM qinglong.runs WHERE id = $1`, runID).Scan(&s); err != nil {
		t.Fatalf("run %s: %v", runID, err)
	}
	return s
}

// awaitRun waits until a Run is in one of states and returns it.
func (c *cluster) awaitRun(t testing.TB, runID string, within time.Duration, states ...string) string {
	t.Helper()
	var s string
	eventually(t, within, fmt.Sprintf("run %s to be %v", runID, states), func() bool {
		s = c.runState(t, runID)
		for _, want := range states {
			if s == want {
				return true
			}
		}
		return false
	})
	return s
}

// attemptRow is one Attempt as stored.
type attemptRow struct {
	ID, State, Worker, ResultCode  string
	Number                         int
	StartedAtMs, FinishedAtMs      *int64
	LeaseExpiresAtMs, LeaseVersion *int64
	ExitCode                       *int32
	UpdatedAtMs                    int64
}

// attempts reads a Run's Attempts in order.
func (c *cluster) attempts(t testing.TB, runID string) []attemptRow {
	t.Helper()
	rows, err := c.env.Super.Query(context.Background(), `SELECT a.id::text, a.state, coalesce(w.name, ''), coalesce(a.result_code, ''), a.number,
			a.started_at_ms, a.finished_at_ms, a.lease_expires_at_ms, a.lease_version, a.exit_code, a.updated_at_ms
		FROM qinglong.attempts a LEFT JOIN qinglong.workers w ON w.id = a.worker_id WHERE a.run_id = $1 ORDER BY a.number`, runID)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (attemptRow, error) {
		var a attemptRow
		err := r.Scan(&a.ID, &a.State, &a.Worker, &a.ResultCode, &a.Number, &a.StartedAtMs, &a.FinishedAtMs,
			&a.LeaseExpiresAtMs, &a.LeaseVersion, &a.ExitCode, &a.UpdatedAtMs)
		return a, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// events counts a Run's events by name.
func (c *cluster) events(t testing.TB, runID, name string) int64 {
	t.Helper()
	return c.env.Int(t, `SELECT count(*) FROM qinglong.run_events WHERE run_id = $1 AND name = $2`, runID, name)
}

// readLines reads a file commands append to, one entry a line.
func readLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// processGone reports whether pid no longer runs (absent, or a zombie).
func processGone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}

// project is a definitions document: tasks given as YAML snippets (each
// a list item's fields after "- name: NAME"), and one quiet trigger per
// task named after it, so a test fires Runs one by one.
func project(name, out string, tasks map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "project: %s\ntasks:\n", name)
	names := make([]string, 0, len(tasks))
	for n := range tasks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "  - name: %s\n    env:\n      OUT: %s\n%s\n", n, out, indent(tasks[n], "    "))
	}
	b.WriteString("triggers:\n")
	cron := clustertest.QuietCron()
	for _, n := range names {
		fmt.Fprintf(&b, "  - {name: %s, task: %s, cron: %q, timezone: UTC}\n", n, n, cron)
	}
	return b.String()
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// hold makes commands of holdScript keep running; release lets them end.
func (c *cluster) hold(t testing.TB) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(c.out(), "hold"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

func (c *cluster) release(t testing.TB) {
	t.Helper()
	if err := os.Remove(filepath.Join(c.out(), "hold")); err != nil {
		t.Fatal(err)
	}
}

// awaitPid waits for an attempt's command to write its pid, and kills its
// process group when the test ends, whatever the test did to its worker.
func (c *cluster) awaitPid(t testing.TB, attemptID string) int {
	t.Helper()
	path := filepath.Join(c.out(), attemptID+".pid")
	var pid int
	eventually(t, 20*time.Second, "attempt "+attemptID+" to write its pid", func() bool {
		b, err := os.ReadFile(path)
		if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
	return pid
}

// journalState reads an attempt's state in a worker's journal.
func (c *cluster) journalState(t testing.TB, w *workerDef, attemptID string) string {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(w.dataDir, journal.FileName)+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var state string
	if err := db.QueryRow(`SELECT state FROM attempts WHERE attempt_id = ?`, attemptID).Scan(&state); err != nil {
		t.Fatalf("journal of %s, attempt %s: %v", w.name, attemptID, err)
	}
	return state
}

// journalToken reads the lease token a worker's journal holds for an
// attempt: the token of the offer that granted it.
func (c *cluster) journalToken(t testing.TB, w *workerDef, attemptID string) string {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(w.dataDir, journal.FileName)+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var token string
	if err := db.QueryRow(`SELECT o.token FROM offers o JOIN attempts a ON a.offer_id = o.offer_id WHERE a.attempt_id = ?`, attemptID).Scan(&token); err != nil {
		t.Fatalf("journal of %s, token of attempt %s: %v", w.name, attemptID, err)
	}
	return token
}

// runFacts is everything a write to a Run or its Attempts would change.
func (c *cluster) runFacts(t testing.TB, runID string) string {
	t.Helper()
	var facts string
	if err := c.env.Super.QueryRow(context.Background(), `SELECT concat_ws(' ', r.state, r.version, r.last_event_seq, r.updated_at_ms,
			(SELECT string_agg(concat_ws(':', a.id, a.state, a.updated_at_ms, a.result_code, a.exit_code, a.lease_version), ',' ORDER BY a.number)
			   FROM qinglong.attempts a WHERE a.run_id = r.id),
			(SELECT count(*) FROM qinglong.run_events e WHERE e.run_id = r.id))
		FROM qinglong.runs r WHERE r.id = $1`, runID).Scan(&facts); err != nil {
		t.Fatal(err)
	}
	return facts
}

// postWorker sends one worker request as a worker would.
func postWorker(t testing.TB, url, credential string, body any) (int, []byte) {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+credential)
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
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

// runQL runs the ql binary to its end with env added to the base.
func (c *cluster) runQL(t testing.TB, env []string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.ql, args...)
	cmd.Env = append(c.baseEnv(), env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("ql %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}
