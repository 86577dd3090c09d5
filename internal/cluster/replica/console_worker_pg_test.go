package replica

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A replica's console names each Run's worker on the Runs page, filters
// the Runs by worker, and links each worker of the Workers page to the
// Runs it ran; a worker name no worker has is said beside the filter.
func TestTheConsoleNamesEachRunsWorkerAndListsTheRunsAWorkerRan(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	rt := env.Runtime(t, "console-worker", 30*time.Second)
	runIDs := admitRuns(t, env, rt, 2)
	w := newFakeWorker(t, env, rt, "w-console")
	g, lease := w.startOne(t)
	w.exit(t, lease, 0, 0)
	other := runIDs[0]
	if other == g.RunID {
		other = runIDs[1]
	}
	r := startReplica(t, bin, env, "replica-console-worker")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	c, get := consoleBrowser(t, base)
	if resp := consoleSignIn(t, c, get, base, map[string][]string{"token": {env.Token(t, "viewer", apitoken.Read)}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	link := `<a href="/runs?worker=w-console">w-console</a>`
	for lang, header := range map[string]string{"en": "<th>Worker</th>", "zh": "<th>执行节点</th>"} {
		resp, page := get("/runs?lang=" + lang)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, header) || !strings.Contains(page, link) || !strings.Contains(page, `name="worker"`) {
			t.Errorf("%s Runs page: %d; want a %s column linking the Run's worker and a worker filter:\n%s", lang, resp.StatusCode, header, page)
		}
	}
	resp, page := get("/runs?worker=w-console")
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, g.RunID) || strings.Contains(page, other) {
		t.Errorf("Runs of w-console: %d; want %s alone, not %s:\n%s", resp.StatusCode, g.RunID, other, page)
	}
	if resp, page := get("/workers"); resp.StatusCode != http.StatusOK || !strings.Contains(page, `href="/runs?worker=w-console"`) {
		t.Errorf("Workers page: %d; want w-console linked to its Runs:\n%s", resp.StatusCode, page)
	}
	if resp, page := get("/runs?worker=w-nobody"); resp.StatusCode != http.StatusNotFound || !strings.Contains(page, `id="runs-error"`) || !strings.Contains(page, "w-nobody") {
		t.Errorf("Runs of a worker that does not exist: %d; want 404 saying so beside the filter:\n%s", resp.StatusCode, page)
	}
}
