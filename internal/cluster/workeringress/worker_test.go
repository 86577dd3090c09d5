package workeringress

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/worker/agent"
)

// proxy stands between a real worker and the ingress, as a middlebox on
// the network would: it can rewrite the commands of the grants it passes
// on, and answer the log requests unavailable, as a replica that cannot be
// reached for them.
type proxy struct {
	url string
	// rewrite, when set, alters every granted command.
	rewrite func(*task.Command)
	// blockLogs answers log requests 503; refusedLogs counts them.
	blockLogs   atomic.Bool
	refusedLogs atomic.Int64
	// logDelay holds each log request that long before passing it on,
	// as a healthy replica slower than the command's output does; logs
	// counts the log requests.
	logDelay atomic.Int64
	logs     atomic.Int64
	// leaseDelay holds each start, renewal and completion that long
	// before passing it on, as a replica slow to answer every request
	// does; leaseSteps counts the requests so held.
	leaseDelay atomic.Int64
	leaseSteps atomic.Int64
	// holdLogs, once set, answers no log request, each held until the
	// worker gives it up, as a replica too busy for a moment does, until
	// the worker gave up one it sent after a renewal (renewedInHold): it
	// then got no answer for as long as the worker waits for one.
	// heldGivenUp counts the held requests the worker gave up.
	holdLogs, renewedInHold atomic.Bool
	heldGivenUp             atomic.Int64
	// sends is what the proxy saw of the attempts' own requests.
	sends sends
	// swallowGrants loses every pull reply that carries grants (the
	// replica made them): the connection is held unanswered until the
	// worker gives up on it. swallowed receives each such reply's body.
	swallowGrants atomic.Bool
	swallowed     chan []byte
}

func newProxy(t *testing.T, target string, rewrite func(*task.Command)) *proxy {
	t.Helper()
	to, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{rewrite: rewrite, swallowed: make(chan []byte, 16)}
	transport := &http.Transport{}
	rp := httputil.NewSingleHostReverseProxy(to)
	rp.Transport = transport
	// The worker cancels the sends of a start or renewal still open once
	// one of them is answered: no error, though the proxy would print each.
	rp.ErrorLog = log.New(io.Discard, "", 0)
	rp.ModifyResponse = func(resp *http.Response) error {
		if p.rewrite == nil || resp.Request.URL.Path != workerproto.PathPull || resp.StatusCode != http.StatusOK {
			return nil
		}
		return p.tamper(resp)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.sends.note(t, r)
		if r.URL.Path == workerproto.PathLog && p.blockLogs.Load() {
			p.refusedLogs.Add(1)
			fail(w, http.StatusServiceUnavailable, workerproto.CodeUnavailable, "the replica cannot be reached")
			return
		}
		if r.URL.Path == workerproto.PathRenew && p.holdLogs.Load() {
			p.renewedInHold.Store(true)
		}
		if d := time.Duration(p.leaseDelay.Load()); d > 0 && (r.URL.Path == workerproto.PathStart || r.URL.Path == workerproto.PathRenew || r.URL.Path == workerproto.PathComplete) {
			p.leaseSteps.Add(1)
			time.Sleep(d)
		}
		if r.URL.Path == workerproto.PathLog {
			if p.logs.Add(1); p.holdLogs.Load() {
				afterRenewal := p.renewedInHold.Load()
				// Read whole, the request's connection is watched, so its
				// context ends when the worker gives the request up.
				_, _ = io.Copy(io.Discard, r.Body)
				<-r.Context().Done()
				p.heldGivenUp.Add(1)
				if afterRenewal {
					p.holdLogs.Store(false)
				}
				return
			}
			time.Sleep(time.Duration(p.logDelay.Load()))
		}
		if r.URL.Path == workerproto.PathPull && p.swallowGrants.Load() {
			rec := httptest.NewRecorder()
			rp.ServeHTTP(rec, r)
			if rec.Code == http.StatusOK && strings.Contains(rec.Body.String(), `"attemptId"`) {
				p.swallowed <- rec.Body.Bytes()
				<-r.Context().Done()
				return
			}
			maps.Copy(w.Header(), rec.Header())
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		srv.Close()
		transport.CloseIdleConnections()
	})
	p.url = srv.URL
	return p
}

// tamper rewrites the commands of a pull reply, keeping their digests.
func (p *proxy) tamper(resp *http.Response) error {
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	var reply workerproto.PullReply
	if err := json.Unmarshal(raw, &reply); err != nil {
		return err
	}
	for i, g := range reply.Grants {
		c, err := task.DecodeCommand(g.Command)
		if err != nil {
			return err
		}
		p.rewrite(&c)
		if reply.Grants[i].Command, err = task.EncodeCommand(c); err != nil {
			return err
		}
	}
	if raw, err = json.Marshal(reply); err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	resp.ContentLength = int64(len(raw))
	resp.Header.Set("Content-Length", strconv.Itoa(len(raw)))
	return nil
}

func fail(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(workerproto.Error{Code: code, Message: msg})
}

// runWorker runs a real worker against server until the test ends.
func runWorker(t *testing.T, server, cred string) *syncBuffer {
	t.Helper()
	logs := &syncBuffer{}
	// Made here, not in the goroutine: a directory made there could have
	// its removal registered after the stop below, and so run before it,
	// taking the journal from under a worker still running.
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := agent.Run(ctx, agent.Config{Server: server, Credential: cred, DataDir: dir, Concurrency: 1,
			StopTimeout: 5 * time.Second, PullWait: time.Second, BaseEnv: []string{"PATH=/usr/bin:/bin"},
			Logger: slog.New(slog.NewJSONHandler(logs, nil))})
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("worker: %v\n%s", err, logs.String())
		}
	})
	return logs
}

// ended is the one attempt of project's one Run, once it ended.
type ended struct {
	id, state, errorCode, errorMessage, runState string
	logTruncated                                 bool
}

func (f *fixture) ended(t *testing.T, project string) ended {
	t.Helper()
	return f.endedWithin(t, project, 20*time.Second)
}

// endedWithin is ended for a command that may run up to timeout.
func (f *fixture) endedWithin(t *testing.T, project string, timeout time.Duration) ended {
	t.Helper()
	var a ended
	eventually(t, timeout, "the attempt to end", func() bool {
		err := f.env.Super.QueryRow(t.Context(), `SELECT a.id::text, a.state, coalesce(a.error_code, ''), coalesce(a.error_message, ''), r.state, a.log_truncated
			FROM qinglong.attempts a JOIN qinglong.runs r ON r.id = a.run_id JOIN qinglong.projects p ON p.id = r.project_id
			WHERE p.name = $1`, project).Scan(&a.id, &a.state, &a.errorCode, &a.errorMessage, &a.runState, &a.logTruncated)
		if err != nil {
			t.Fatal(err)
		}
		return a.state == "succeeded" || a.state == "failed"
	})
	return a
}

// log is the attempt's whole log as the store holds it. It reads as the
// replica's log route does, a piece at a time: one
// statement reading a log of tens of megabytes whole can outlast the
// runtime role's statement timeout on a loaded machine.
func (f *fixture) log(t *testing.T, attemptID string) string {
	t.Helper()
	var out bytes.Buffer
	for offset := int64(0); ; {
		next, _, err := f.rt.ReadAttemptLogUpTo(t.Context(), attemptID, offset, 4<<20, &out)
		if err != nil {
			t.Fatal(err)
		}
		if next == offset {
			return out.String()
		}
		offset = next
	}
}

// scriptTask is a definitions document of project with one task running
// script and one trigger that never fires by itself.
func scriptTask(project, script string) string {
	indented := "      " + strings.ReplaceAll(strings.TrimSpace(script), "\n", "\n      ")
	return fmt.Sprintf("project: %s\ntasks:\n  - name: job\n    script: |\n%s\ntriggers:\n  - {name: t00000, task: job, cron: %q, timezone: UTC}\n",
		project, indented, clustertest.QuietCron())
}

// A command whose bytes were altered between the replica and the worker
// no longer matches the digest recorded when its revision was published:
// the worker does not run it, and the attempt ends failed with a reason
// that says what to check.
func TestAGrantWhoseCommandWasAlteredOnTheWayIsRefusedAndNeverRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	dir := t.TempDir()
	f.admitDefinitions(t, f.rt, "altered", scriptTask("altered", "touch "+dir+"/published"), 1, nil)
	p := newProxy(t, f.url, func(c *task.Command) { c.Script = "touch " + dir + "/altered" })
	logs := runWorker(t, p.url, f.worker(t, "altered"))
	a := f.ended(t, "altered")
	if a.state != "failed" || a.runState != "failed" || a.errorCode != agent.ErrorCodeDigestMismatch ||
		!strings.HasPrefix(a.errorMessage, "grant digest mismatch: the command received does not match the revision the control plane recorded") {
		t.Fatalf("attempt %+v; want failed with %s and its reason", a, agent.ErrorCodeDigestMismatch)
	}
	for _, name := range []string{"altered", "published"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s: %v; the command ran", name, err)
		}
	}
	if l := f.log(t, a.id); !strings.Contains(l, "grant digest mismatch") || !strings.Contains(l, "proxy") {
		t.Errorf("the attempt's log %q does not say why nothing ran", l)
	}
	if !strings.Contains(logs.String(), `"code":"`+agent.ErrorCodeDigestMismatch+`"`) {
		t.Errorf("the worker did not log the refusal:\n%s", logs.String())
	}
}

var dropMarker = regexp.MustCompile(`\n\[qinglong: (\d+) bytes? of output (?:was|were) dropped here: [^\]\n]*\]\n`)

// dropCount counts the drop markers in a stored log and the bytes they
// say were dropped.
func dropCount(log string) (markers, dropped int) {
	for _, m := range dropMarker.FindAllStringSubmatch(log, -1) {
		n, _ := strconv.Atoi(m[1])
		markers, dropped = markers+1, dropped+n
	}
	return markers, dropped
}

// Output the worker had to drop while it could not send its log (no
// replica answered and its buffer was full) is replaced in the stored log
// by a marker with the count, and the worker logs the gap at WARN; the
// log, markers included, stays within the cap.
func TestOutputDroppedWhileTheReplicaWasUnreachableLeavesAMarkerWithItsCountAndAWarning(t *testing.T) {
	t.Parallel()
	const logCap, written = 64 << 10, 200_000
	f := newFixture(t, Config{Settings: pgstore.WorkerSettings{RunLease: 30 * time.Second, LogCap: logCap}})
	dir := t.TempDir()
	f.admitDefinitions(t, f.rt, "dropped", scriptTask("dropped", fmt.Sprintf(`
head -c %d /dev/zero | tr '\0' x
touch %[2]s/wrote
while [ ! -e %[2]s/go ]; do sleep 0.02; done
echo after`, written, dir)), 1, nil)
	p := newProxy(t, f.url, nil)
	p.blockLogs.Store(true)
	logs := runWorker(t, p.url, f.worker(t, "dropped"))
	eventually(t, 20*time.Second, "the command to write its output", func() bool {
		_, err := os.Stat(filepath.Join(dir, "wrote"))
		return err == nil && p.refusedLogs.Load() > 0
	})
	p.blockLogs.Store(false)
	// The command goes on writing only once the worker could send what it
	// held, so its last line finds room.
	eventually(t, 20*time.Second, "the held output to be sent", func() bool {
		return f.env.Int(t, `SELECT coalesce(sum(a.log_bytes), 0) FROM qinglong.attempts a JOIN qinglong.runs r ON r.id = a.run_id
			JOIN qinglong.projects p ON p.id = r.project_id WHERE p.name = 'dropped'`) > 0
	})
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	a := f.ended(t, "dropped")
	l := f.log(t, a.id)
	markers, dropped := dropCount(l)
	kept := strings.Count(l, "x")
	switch {
	case a.state != "succeeded" || a.logTruncated:
		t.Fatalf("attempt %+v; want succeeded, its log not cut by the cap", a)
	case markers == 0 || dropped == 0:
		t.Fatalf("no marker of the dropped output in a log of %d bytes holding %d of %d bytes written; its tail: %q", len(l), kept, written, l[max(0, len(l)-300):])
	case kept+dropped != written:
		t.Fatalf("the log holds %d bytes of output and its markers count %d dropped; %d were written", kept, dropped, written)
	case !strings.HasSuffix(l, "after\n"):
		t.Fatalf("the output after the gap is missing; the log ends %q", l[max(0, len(l)-300):])
	case len(l) > logCap:
		t.Fatalf("the log holds %d bytes, over the %d-byte cap", len(l), logCap)
	case !strings.Contains(logs.String(), `"level":"WARN","msg":"output was dropped`) || !strings.Contains(logs.String(), `"code":"attempt_output_dropped"`):
		t.Fatalf("the worker did not warn of the dropped output:\n%s", logs.String())
	}
}
