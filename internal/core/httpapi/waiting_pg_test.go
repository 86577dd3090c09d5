package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/replica"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// A queued cluster Run that no live worker can take says why where people
// look: `ql runs show` prints a waiting line naming the placement's labels,
// and its -o json and the API's run detail carry the same waiting object
// (reason, labels, workers, workerLabels, message), which the CLI asking
// the API prints as it does from the database; once a worker carrying
// the labels is connected, the Run is about to be dispatched and neither
// says anything more. `ql runs logs` of the waiting Run says why it has
// no output, and `ql runs logs -f` says why it waits, once. Not parallel: the runtime role's URL holds a
// password, so it reaches the CLI through $QL_DATABASE_URL.
func TestAQueuedRunNoWorkerCanTakeSaysWhyInTheCLIAndTheAPI(t *testing.T) {
	env := clustertest.New(t)
	env.Apply(t, strings.Replace(clustertest.Triggers("placed", 1, clustertest.QuietCron()),
		"    script: echo hi\n", "    script: echo hi\n    placement: {labels: {zone: eu, gpu: a100}}\n", 1))
	env.MakeDue(t, 1000)
	rt := env.Runtime(t, "replica-waiting", 30*time.Second)
	if sum, err := schedule.Round(t.Context(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil || sum.Counts[schedule.Admitted] != 1 {
		t.Fatalf("round %v %v", sum.Counts, err)
	}
	var runID string
	if err := env.Super.QueryRow(t.Context(), `SELECT id::text FROM qinglong.runs`).Scan(&runID); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.Authed(t, httpapi.Config{Runs: rt, Triggers: rt, Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)}))
	t.Cleanup(srv.Close)
	t.Setenv("QL_DATABASE_URL", env.URL(pgstore.RoleRuntime))
	opts := cli.Options{Binary: "ql", OpenPostgres: replica.Open}
	ql := func(args ...string) []byte {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := cli.Main(context.Background(), opts, args, &out, &errOut); code != 0 {
			t.Fatalf("ql %v: exit %d %s", args, code, errOut.String())
		}
		return out.Bytes()
	}
	type detail struct {
		Waiting *struct {
			Reason       string
			Labels       map[string]string
			Workers      *int
			WorkerLabels []map[string]string
			Message      string
		}
	}
	show := func() (string, detail) {
		t.Helper()
		text := string(ql("runs", "show", runID))
		out := ql("runs", "show", runID, "-o", "json")
		resp, err := http.Get(srv.URL + "/api/v1/runs/" + runID)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET the run: %d %q %v", resp.StatusCode, body, err)
		}
		if !reflect.DeepEqual(decode(t, "cli", out), decode(t, "api", body)) {
			t.Fatalf("ql runs show -o json differs from the API:\ncli %s\napi %s", out, body)
		}
		var d detail
		if err := json.Unmarshal(out, &d); err != nil {
			t.Fatal(err)
		}
		return text, d
	}

	text, d := show()
	if w := d.Waiting; w == nil || w.Reason != "no_worker" || !strings.Contains(w.Message, "ql-worker") || !strings.Contains(text, "waiting    no worker is connected") {
		t.Fatalf("with no worker: waiting %+v, text:\n%s\nwant no_worker and how to start one", w, text)
	}
	// The cluster's shape gives the placement's labels and the workers
	// counted, none included, as a client of the cluster reads them.
	if w := d.Waiting; !reflect.DeepEqual(w.Labels, map[string]string{"zone": "eu", "gpu": "a100"}) || w.Workers == nil || *w.Workers != 0 {
		t.Fatalf("with no worker: waiting labels %v, workers given %v; want the placement's labels and workers 0 given", w.Labels, w.Workers != nil)
	}
	// Its log has nothing yet and says why; a follower says it once.
	var out, errOut bytes.Buffer
	if code := cli.Main(context.Background(), opts, []string{"runs", "logs", runID}, &out, &errOut); code == 0 ||
		!strings.Contains(errOut.String(), "has not started yet, so it has no output; it waits: no worker is connected") {
		t.Fatalf("runs logs of the waiting run: exit %d, %q; want the reason it has no output", code, errOut.String())
	}
	var followed syncbuf.Buffer
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan int, 1)
	go func() { done <- cli.Main(ctx, opts, []string{"runs", "logs", "-f", runID}, io.Discard, &followed) }()
	said := "(run " + runID + " waits: no worker is connected"
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(followed.String(), said) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second) // a few more rounds, which must not repeat it
	cancel()
	<-done
	if n := strings.Count(followed.String(), said); n != 1 {
		t.Fatalf("runs logs -f of the waiting run printed %q; want the reason once", followed.String())
	}

	connect := func(name string, labels map[string]string) {
		t.Helper()
		env.ConnectWorker(t, rt, name, labels, 4)
	}
	connect("eu-cpu", map[string]string{"zone": "eu"})
	text, d = show()
	want := map[string]string{"zone": "eu", "gpu": "a100"}
	if w := d.Waiting; w == nil || w.Reason != "no_matching_worker" || !reflect.DeepEqual(w.Labels, want) || w.Workers == nil || *w.Workers != 1 ||
		len(w.WorkerLabels) != 1 || !reflect.DeepEqual(w.WorkerLabels[0], map[string]string{"zone": "eu"}) ||
		!strings.Contains(text, "waiting    its task's placement requires the labels gpu=a100,zone=eu") || !strings.Contains(text, "{zone=eu}") {
		t.Fatalf("with a worker lacking gpu: waiting %+v, text:\n%s\nwant no_matching_worker naming gpu=a100,zone=eu and the worker's zone=eu", w, text)
	}
	// The CLI asking the API prints the same, waiting line included.
	t.Setenv("QL_TOKEN", "qlt_any") // the test server signs every request in itself
	waitingLine := func(text string) string {
		for line := range strings.Lines(text) {
			if strings.HasPrefix(line, "waiting ") {
				return line
			}
		}
		return ""
	}
	if remote := string(ql("runs", "show", runID, "--api-url", srv.URL)); waitingLine(remote) == "" || waitingLine(remote) != waitingLine(text) {
		t.Fatalf("ql runs show over the API printed:\n%s\nover the database:\n%s\nwant the same waiting line", remote, text)
	}

	connect("eu-gpu", want)
	if text, d = show(); d.Waiting != nil || waitingLine(text) != "" {
		t.Fatalf("with a matching worker: waiting %+v, text:\n%s\nwant nothing: it is granted at that worker's next pull", d.Waiting, text)
	}
}
