package httpapi_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/replica"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// An attempt not started yet is said in words where people read it, never
// as the bare stored "claimed", which reads as taken: `ql runs show`'s
// attempts table says it waits to start while its Run is queued, and that
// a worker was granted it but has not started it once its Run is
// dispatching; the API's run detail, and `ql runs show -o json`, keep the
// stored state claimed for scripts and carry the same words in stateText.
// Not parallel: the runtime role's URL holds a password, so it reaches
// the CLI through $QL_DATABASE_URL.
func TestAnUnstartedAttemptSaysInWordsWhetherItWaitsOrWasGrantedInTheCLIAndTheAPI(t *testing.T) {
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("words", 1, clustertest.QuietCron()))
	env.MakeDue(t, 1000)
	rt := env.Runtime(t, "replica-words", 30*time.Second)
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
	ql := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := cli.Main(context.Background(), cli.Options{Binary: "ql", OpenPostgres: replica.Open}, args, &out, &errOut); code != 0 {
			t.Fatalf("ql %v: exit %d %s", args, code, errOut.String())
		}
		return out.String()
	}
	check := func(when, runState, words string) {
		t.Helper()
		resp, err := http.Get(srv.URL + "/api/v1/runs/" + runID)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: GET the run: %d %q %v", when, resp.StatusCode, body, err)
		}
		for what, doc := range map[string]string{"the API": string(body), "ql runs show -o json": ql("runs", "show", runID, "-o", "json")} {
			var d view.RunDetail
			if err := json.Unmarshal([]byte(doc), &d); err != nil {
				t.Fatalf("%s: %s: %q: %v", when, what, doc, err)
			}
			if string(d.Run.State) != runState || len(d.Attempts) != 1 || d.Attempts[0].State != "claimed" || d.Attempts[0].StateText != words {
				t.Errorf("%s: %s gives the run %s and attempts %+v; want the run %s, its attempt's state claimed and its stateText %q", when, what, d.Run.State, d.Attempts, runState, words)
			}
		}
		text := ql("runs", "show", runID)
		var row string
		for line := range strings.Lines(text) {
			if strings.HasPrefix(line, "1 ") && strings.Contains(line, "remote_worker") {
				row = line
			}
		}
		if !strings.Contains(row, "  "+words+"  ") || strings.Contains(text, "claimed") {
			t.Errorf("%s: ql runs show printed:\n%s\nwant the attempt's row to say %q and no bare claimed", when, text, words)
		}
	}
	check("queued", "queued", "waiting to start")

	id, reg := env.ConnectWorker(t, rt, "w1", nil, 1)
	token := make([]byte, 32)
	if _, err := rand.Read(token); err != nil {
		t.Fatal(err)
	}
	pull := workerproto.PullRequest{SessionID: reg.SessionID, OfferID: ids.New(), Token: base64.RawURLEncoding.EncodeToString(token), Max: 1}
	if reply, err := rt.PullGrants(t.Context(), id, pull, pgstore.WorkerSettings{}); err != nil || len(reply.Grants) != 1 {
		t.Fatalf("pull: %+v %v; want the run granted", reply, err)
	}
	check("granted", "dispatching", "granted to a worker, not started yet")
}
