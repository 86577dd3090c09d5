package replica

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// On a cluster replica, whose logs are chunks in PostgreSQL, a Run's page
// offers each attempt's log as a file as a standalone server's does: while
// a worker's command runs, what its log holds so far, said so; once it
// ended, the whole log byte for byte — over 64 KiB in several chunks, a
// byte of no UTF-8 character as it is — with its length, as text/plain and
// an attachment named after its project, trigger, Run and attempt; a log
// cut at its cap with its truncation marker. An attempt number the Run
// does not have is a 404 naming the ones it has, and a log retention
// removed answers 410 saying so, its row offering no download.
func TestAReplicaDownloadsAnAttemptsWholeLogAsStored(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	rt := env.Runtime(t, "log-download", 30*time.Second)
	admitRuns(t, env, rt, 2)
	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleAdmin)}, "tokens", "create", "viewer", "--scope", "read")
	if code != 0 {
		t.Fatalf("tokens create: exit %d %q", code, out)
	}
	r := startReplica(t, bin, env, "replica-download")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	c, get := consoleBrowser(t, base)
	if resp := consoleSignIn(t, c, get, base, url.Values{"token": {strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	download := func(id string, sized bool) string {
		t.Helper()
		d, err := rt.RunGet(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		resp, body := get("/runs/" + id + "/download?attempt=1")
		name := `attachment; filename="` + d.Run.ProjectName + "-" + d.Run.TriggerName + "-" + id + `-attempt-1.log"`
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" || resp.Header.Get("Content-Disposition") != name {
			t.Fatalf("the download of run %s: %d %q %q; want 200, text/plain, %s", id, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"), name)
		}
		if length := resp.Header.Get("Content-Length"); sized && length != strconv.Itoa(len(body)) {
			t.Errorf("the download of run %s has Content-Length %q; want its %d bytes", id, length, len(body))
		}
		return body
	}

	w := newFakeWorker(t, env, rt, "w-download")
	g, lease := w.startOne(t)
	id := g.RunID
	first := "\xff\xfe first line\n" + strings.Repeat("a", 100<<10) + "\n"
	offset, _ := w.appendLog(t, lease, 0, first, pgstore.WorkerSettings{})
	if _, page := get("/runs/" + id); !strings.Contains(page, `href="/runs/`+id+`/download?attempt=1"`) || !strings.Contains(page, ">Download log (so far)</a>") {
		t.Fatalf("the running Run's page does not offer its log so far:\n%s", page)
	}
	if body := download(id, false); body != first {
		t.Fatalf("the running attempt's download: %d bytes starting %q; want the %d bytes sent so far", len(body), body[:min(len(body), 20)], len(first))
	}
	second := strings.Repeat("b\n", 60<<10)
	offset, _ = w.appendLog(t, lease, offset, second, pgstore.WorkerSettings{})
	w.exit(t, lease, 0, offset)
	if body := download(id, true); body != first+second {
		t.Fatalf("the ended attempt's download: %d bytes; want the %d bytes of its chunks as sent", len(body), len(first+second))
	}
	if resp, page := get("/runs/" + id + "/download?attempt=2&lang=zh"); resp.StatusCode != http.StatusNotFound || !strings.Contains(page, "该运行没有第 2 次尝试；它的尝试序号为 1。") {
		t.Fatalf("the download of attempt 2: %d; want 404 naming attempt 1 in Chinese:\n%s", resp.StatusCode, page)
	}

	const capBytes = 100 << 10
	g, lease = w.startOne(t)
	capped := strings.Repeat("c", 80<<10) + "\xff\n" + strings.Repeat("d", 80<<10)
	offset, _ = w.appendLog(t, lease, 0, capped[:80<<10], pgstore.WorkerSettings{LogCap: capBytes})
	offset, truncated := w.appendLog(t, lease, offset, capped[80<<10:], pgstore.WorkerSettings{LogCap: capBytes})
	if !truncated {
		t.Fatalf("a log of %d bytes under a %d-byte cap was not truncated", len(capped), capBytes)
	}
	w.exit(t, lease, 0, offset)
	if body, want := download(g.RunID, true), capped[:capBytes]+string(run.TruncationMarker(capBytes)); body != want {
		t.Fatalf("the capped log's download: %d bytes ending %q; want the %d bytes kept and the marker", len(body), body[max(0, len(body)-80):], capBytes)
	}

	env.Exec(t, `DELETE FROM qinglong.run_log_chunks WHERE attempt_id = (SELECT id FROM qinglong.attempts WHERE run_id = $1)`, id)
	if _, page := get("/runs/" + id + "?lang=en"); strings.Contains(page, "/download?") || !strings.Contains(page, `<span class="log-gone">removed by log retention</span>`) {
		t.Fatalf("the Run's page once retention removed its log offers a download or does not say why not:\n%s", page)
	}
	held := strconv.Itoa(len(first + second))
	if resp, page := get("/runs/" + id + "/download?attempt=1"); resp.StatusCode != http.StatusGone || !strings.Contains(page, "Log retention removed the output of attempt 1 of run "+id+" (it held "+held+" bytes)") || !strings.Contains(page, "The run ended at ") {
		t.Fatalf("the download once retention removed the log: %d; want 410 saying so, what it held and when the Run ended:\n%s", resp.StatusCode, page)
	}
}
