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
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/replica"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// lastRunPage is GET /api/v1/triggers and `ql triggers list -o json` as
// the last-run tests read them.
type lastRunPage struct {
	Triggers []struct {
		TriggerID, Name, ProjectName string
		LastRun                      *struct {
			ID             string
			State          run.State
			ScheduledForMs int64
			FinishedAtMs   *int64
		}
	}
	LastRunsUnknown string
}

// cluster is the cluster's CLI run in this process, on $QL_DATABASE_URL.
func cluster(args ...string) (int, []byte, string) {
	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), cli.Options{Binary: "ql", OpenPostgres: replica.Open}, args, &out, &errOut)
	return code, out.Bytes(), errOut.String()
}

// `ql triggers list` on PostgreSQL carries each trigger's newest Run — the
// one admitted last, a manual Run after a scheduled one — and none for a
// trigger that never ran, in its table and in -o json, and GET
// /api/v1/triggers carries the same. Not parallel: the runtime role's URL
// reaches the CLI through $QL_DATABASE_URL.
func TestTriggersListOnPostgreSQLCarriesEachTriggersLastRunAsTheAPIDoes(t *testing.T) {
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("shape", 2, clustertest.QuietCron()))
	env.MakeDue(t, 1000)
	rt := env.Runtime(t, "replica-last", 30*time.Second)
	if sum, err := schedule.Round(t.Context(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 2, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil || sum.Counts[schedule.Admitted] != 2 {
		t.Fatalf("round %v %v", sum.Counts, err)
	}
	env.Apply(t, clustertest.Triggers("idle", 1, clustertest.QuietCron()))
	list, _, err := rt.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 10})
	if err != nil || len(list) != 3 {
		t.Fatalf("triggers %+v %v", list, err)
	}
	byName := map[string]string{}
	for _, tr := range list {
		byName[tr.ProjectName+"/"+tr.Name] = tr.TriggerID
	}
	manual, err := rt.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: byName["shape/t00000"], RequestID: ids.New(), Actor: "test"})
	if err != nil || !manual.Created {
		t.Fatalf("run now %+v %v", manual, err)
	}
	scheduled, _, err := rt.RunList(t.Context(), run.ListParams{TriggerID: byName["shape/t00001"], Limit: 1})
	if err != nil || len(scheduled) != 1 {
		t.Fatalf("runs of t00001 %+v %v", scheduled, err)
	}

	srv := httptest.NewServer(httpapi.Authed(t, httpapi.Config{Runs: rt, LastRuns: rt, Triggers: rt, Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)}))
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/api/v1/triggers")
	if err != nil {
		t.Fatal(err)
	}
	api, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v1/triggers: %d %q %v", resp.StatusCode, api, err)
	}
	var page lastRunPage
	if err := json.Unmarshal(api, &page); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{byName["shape/t00000"]: manual.RunID, byName["shape/t00001"]: scheduled[0].ID}
	for _, tr := range page.Triggers {
		switch id, ok := want[tr.TriggerID]; {
		case !ok && tr.LastRun != nil:
			t.Errorf("%s/%s never ran but has lastRun %+v", tr.ProjectName, tr.Name, tr.LastRun)
		case ok && (tr.LastRun == nil || tr.LastRun.ID != id || tr.LastRun.State != run.Queued || tr.LastRun.ScheduledForMs == 0 || tr.LastRun.FinishedAtMs != nil):
			t.Errorf("%s/%s: lastRun %+v; want its newest Run %s, queued, with its scheduled time and no finish", tr.ProjectName, tr.Name, tr.LastRun, id)
		}
	}
	if !bytes.Contains(api, []byte(`"lastRun":{"id":"`)) || bytes.Contains(api, []byte(`"lastRunsUnknown"`)) {
		t.Errorf("GET /api/v1/triggers %s; want lastRun objects and no lastRunsUnknown", api)
	}

	t.Setenv("QL_DATABASE_URL", env.URL(pgstore.RoleRuntime))
	code, out, errOut := cluster("triggers", "list", "-o", "json")
	if code != 0 || !reflect.DeepEqual(decode(t, "cli", out), decode(t, "api", api)) {
		t.Fatalf("ql triggers list -o json: exit %d %s\n%s\nwant what GET /api/v1/triggers gives:\n%s", code, errOut, out, api)
	}
	code, out, errOut = cluster("triggers", "list")
	for name, cell := range map[string]string{"shape +t00000": "queued ", "shape +t00001": "queued ", "idle +t00000": "- "} {
		row := regexp.MustCompile(`(?m)^` + name + ` .*$`).Find(out)
		if code != 0 || !bytes.Contains(out, []byte("LAST RUN")) || !regexp.MustCompile(`UTC +\S+ +`+cell).Match(row) {
			t.Errorf("ql triggers list: exit %d %s\n%s\nwant %s's LAST RUN to start %q", code, errOut, out, name, cell)
		}
	}
}

// The cluster's admin role, which may list triggers but not read Runs,
// still lists them: LAST RUN is "?", not "-" (which would say the trigger
// never ran), a line under the table says to use the runtime role's URL,
// and -o json says it in lastRunsUnknown with no lastRun.
func TestTheAdminRoleListsTriggersSayingWhyItShowsNoLastRun(t *testing.T) {
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("shape", 1, clustertest.QuietCron()))
	env.MakeDue(t, 1000)
	rt := env.Runtime(t, "replica-admin", 30*time.Second)
	if sum, err := schedule.Round(t.Context(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil || sum.Counts[schedule.Admitted] != 1 {
		t.Fatalf("round %v %v", sum.Counts, err)
	}
	t.Setenv("QL_DATABASE_URL", env.URL(pgstore.RoleAdmin))
	hint := "reading the triggers' last Runs needs the runtime role's URL"
	code, out, errOut := cluster("triggers", "list")
	if code != 0 || !regexp.MustCompile(`(?m)^shape +t00000 .* UTC +\S+ +\? `).Match(out) || !bytes.Contains(out, []byte("\nLAST RUN ?: "+hint)) {
		t.Errorf("ql triggers list as admin: exit %d %s\n%s\nwant the trigger listed with LAST RUN ? and a line naming the runtime role", code, errOut, out)
	}
	code, out, errOut = cluster("triggers", "list", "-o", "json")
	var page lastRunPage
	if code != 0 || json.Unmarshal(out, &page) != nil || len(page.Triggers) != 1 || page.Triggers[0].LastRun != nil || !strings.Contains(page.LastRunsUnknown, hint) {
		t.Errorf("ql triggers list -o json as admin: exit %d %s\n%s\nwant the trigger with no lastRun and lastRunsUnknown naming the runtime role", code, errOut, out)
	}
}
