package replica

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// The console's run page of a queued cluster Run that no live worker can
// take says why, in English and in Chinese: first that no worker is
// connected, then, with a worker lacking a label of the task's placement,
// which labels it requires and which the live workers carry; the page's
// live stream sends the reason as it changes, and nothing once a worker
// that can take the Run is connected.
func TestTheConsoleRunPageSaysWhyAQueuedClusterRunWaits(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, strings.Replace(clustertest.Triggers("placed", 1, clustertest.QuietCron()),
		"    script: echo hi\n", "    script: echo hi\n    placement: {labels: {zone: eu, gpu: a100}}\n", 1))
	env.MakeDue(t, 1000)
	rt := env.Runtime(t, "waiting-admit", 30*time.Second)
	if sum, err := schedule.Round(t.Context(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil || sum.Counts[schedule.Admitted] != 1 {
		t.Fatalf("round %v %v", sum.Counts, err)
	}
	runID := ""
	if err := env.Super.QueryRow(t.Context(), `SELECT id::text FROM qinglong.runs`).Scan(&runID); err != nil {
		t.Fatal(err)
	}
	secret := env.Token(t, "waiting", apitoken.Read)
	r := startReplica(t, bin, env, "replica-waiting")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	c, get := consoleBrowser(t, base)
	if resp := consoleSignIn(t, c, get, base, url.Values{"token": {secret}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	page := func(lang string) string {
		t.Helper()
		resp, body := get("/runs/" + runID + "?lang=" + lang)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("run page (%s): %d\n%s", lang, resp.StatusCode, body)
		}
		return body
	}
	// stream reads the run page's live stream until its first facts
	// event and returns that event's data (the facts say why the Run
	// waits).
	stream := func() string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/runs/"+runID+"/log?lang=en", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if sc.Text() == "event: facts" && sc.Scan() {
				return sc.Text()
			}
		}
		return ""
	}

	if en, zh := page("en"), page("zh"); !strings.Contains(en, `id="run-waiting" data-reason="no_worker"`) ||
		!strings.Contains(en, "No worker is connected") || !strings.Contains(zh, "没有任何执行节点连接") {
		t.Fatalf("with no worker the run page does not say so:\n%s\n%s", en, zh)
	}
	if data := stream(); !strings.Contains(data, "No worker is connected") {
		t.Fatalf("the live stream's facts are %q, want them to say no worker is connected", data)
	}

	connect := func(name string, labels map[string]string) {
		t.Helper()
		env.ConnectWorker(t, rt, name, labels, 4)
	}
	connect("eu-cpu", map[string]string{"zone": "eu"})
	if en, zh := page("en"), page("zh"); !strings.Contains(en, `data-reason="no_matching_worker"`) ||
		!strings.Contains(en, "requires the labels gpu=a100,zone=eu, and the 1 live worker does not carry them all") || !strings.Contains(en, "carry: {zone=eu}") ||
		!strings.Contains(zh, "要求标签 gpu=a100,zone=eu") || !strings.Contains(zh, "在线执行节点的标签：{zone=eu}") {
		t.Fatalf("with a worker lacking gpu the run page does not name the labels:\n%s\n%s", en, zh)
	}

	connect("eu-gpu", map[string]string{"zone": "eu", "gpu": "a100"})
	if en := page("en"); strings.Contains(en, "run-waiting") {
		t.Fatalf("with a worker that can take it the run page still says it waits:\n%s", en)
	}
}
