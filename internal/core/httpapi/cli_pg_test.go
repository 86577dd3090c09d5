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
)

func decode(t *testing.T, what string, body []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %q: %v", what, body, err)
	}
	return v
}

// The CLI's -o json and the HTTP API print the same runs and triggers in
// one shape, and the CLI's filters take names where the API takes ids. Not
// parallel: the runtime role's URL holds a password, so it reaches the CLI
// through $QL_DATABASE_URL, as it must.
func TestCLIAndAPIPrintTheSameJSON(t *testing.T) {
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("shape", 2, clustertest.QuietCron()), clustertest.Triggers("other", 1, clustertest.QuietCron()))
	env.MakeDue(t, 1000)
	rt := env.Runtime(t, "replica-shape", 30*time.Second)
	if sum, err := schedule.Round(t.Context(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 2, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil || sum.Counts[schedule.Admitted] != 3 {
		t.Fatalf("round %v %v", sum.Counts, err)
	}
	srv := httptest.NewServer(httpapi.Authed(t, httpapi.Config{Runs: rt, LastRuns: rt, Triggers: rt, Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)}))
	t.Cleanup(srv.Close)
	t.Setenv("QL_DATABASE_URL", env.URL(pgstore.RoleRuntime))
	opts := cli.Options{Binary: "ql", OpenPostgres: replica.Open}
	ql := func(args ...string) (int, []byte, string) {
		var out, errOut bytes.Buffer
		code := cli.Main(context.Background(), opts, args, &out, &errOut)
		return code, out.Bytes(), errOut.String()
	}
	api := func(path string) []byte {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %q %v", path, resp.StatusCode, body, err)
		}
		return body
	}
	same := func(cmd []string, path string) []byte {
		t.Helper()
		code, out, errOut := ql(append(cmd, "-o", "json")...)
		if code != 0 {
			t.Fatalf("ql %v: exit %d %s", cmd, code, errOut)
		}
		want := api(path)
		if got, exp := decode(t, "cli", out), decode(t, "api", want); !reflect.DeepEqual(got, exp) {
			t.Fatalf("ql %s -o json differs from GET %s:\ncli %s\napi %s", strings.Join(cmd, " "), path, out, want)
		}
		return out
	}

	var page struct{ Runs []runRow }
	out := same([]string{"runs", "list"}, "/api/v1/runs")
	if err := json.Unmarshal(out, &page); err != nil || len(page.Runs) != 3 {
		t.Fatalf("runs %s: %v", out, err)
	}
	for _, field := range []string{`"id"`, `"scheduledForMs"`, `"projectName"`, `"origin": "clock"`} {
		if !bytes.Contains(out, []byte(field)) {
			t.Fatalf("runs list -o json has no %s field:\n%s", field, out)
		}
	}
	first := page.Runs[0]
	same([]string{"runs", "show", first.ID}, "/api/v1/runs/"+first.ID)
	same([]string{"triggers", "list"}, "/api/v1/triggers")

	// Names resolve to the ids the API filters by.
	same([]string{"runs", "list", "--project", first.ProjectName}, "/api/v1/runs?project="+first.ProjectID)
	same([]string{"runs", "list", "--trigger", first.ProjectName + "/" + first.TriggerName}, "/api/v1/runs?trigger="+first.TriggerID)
	same([]string{"runs", "list", "--project", first.ProjectName, "--trigger", first.TriggerName}, "/api/v1/runs?trigger="+first.TriggerID)
	same([]string{"triggers", "list", "--project", "other"}, "/api/v1/triggers?project="+projectID(t, page.Runs, "other"))
	if code, _, errOut := ql("runs", "list", "--project", "nope"); code != 1 || !strings.Contains(errOut, `"nope"`) {
		t.Fatalf("unknown project name: exit %d %q; want an error naming it", code, errOut)
	}
	if code, _, errOut := ql("runs", "list", "--trigger", "t00000"); code != 2 || !strings.Contains(errOut, "other, shape") {
		t.Fatalf("trigger name in two projects: exit %d %q; want a usage error naming both", code, errOut)
	}
}

type runRow struct {
	ID, ProjectID, ProjectName, TriggerID, TriggerName string
	ScheduledForMs                                     int64
}

// projectID is the id of project name, read from its runs.
func projectID(t *testing.T, runs []runRow, name string) string {
	t.Helper()
	for _, r := range runs {
		if r.ProjectName == name {
			return r.ProjectID
		}
	}
	t.Fatalf("no run of project %s", name)
	return ""
}
