package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

func getJSON(t *testing.T, url string, into any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(body, into); err != nil {
		t.Fatalf("GET %s: %q: %v", url, body, err)
	}
	return resp.StatusCode
}

func TestAPIOverPostgres(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	expr := clustertest.QuietCron()
	env.Apply(t, clustertest.Triggers("api", 3, expr))
	env.MakeDue(t, 1000)
	rt := env.Runtime(t, "replica-api", 30*time.Second)
	sum, err := schedule.Round(t.Context(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 2, GraceMs: 30_000, NewIDs: ids.Fill})
	if err != nil || sum.Counts[schedule.Admitted] != 3 {
		t.Fatalf("round %v %v", sum.Counts, err)
	}
	srv := httptest.NewServer(authed(t, Config{Runs: rt, Triggers: rt, Detail: rt, Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)}))
	t.Cleanup(srv.Close)

	type runPage struct {
		Runs []struct {
			ID, ProjectID, TriggerID, State string
			ProjectName, TriggerName        string
			Version                         int64
		}
		Next string
	}
	var page runPage
	if st := getJSON(t, srv.URL+"/api/v1/runs?limit=2", &page); st != 200 || len(page.Runs) != 2 || page.Next == "" {
		t.Fatalf("first page %d %+v", st, page)
	}
	first := page.Runs[0]
	if first.State != "queued" || first.Version != 2 || first.ProjectID == "" || first.TriggerID == "" ||
		first.ProjectName != "api" || !strings.HasPrefix(first.TriggerName, "t0000") {
		t.Fatalf("run %+v", first)
	}
	next := page.Next
	page = runPage{}
	if st := getJSON(t, srv.URL+"/api/v1/runs?limit=2&after="+next, &page); st != 200 || len(page.Runs) != 1 || page.Next != "" {
		t.Fatalf("second page %d %+v", st, page)
	}
	page = runPage{}
	if st := getJSON(t, srv.URL+"/api/v1/runs?state=running&project="+first.ProjectID, &page); st != 200 || len(page.Runs) != 0 {
		t.Fatalf("filtered page %d %+v", st, page)
	}
	page = runPage{}
	if st := getJSON(t, srv.URL+"/api/v1/runs?trigger="+first.TriggerID, &page); st != 200 || len(page.Runs) != 1 || page.Runs[0].ID != first.ID {
		t.Fatalf("trigger page %d %+v", st, page)
	}

	var detail struct {
		Run      struct{ ID string }
		Attempts []struct {
			Number   int64
			State    string
			Executor string
		}
		Events []struct {
			Seq     int64
			Name    string
			Payload map[string]any
		}
	}
	if st := getJSON(t, srv.URL+"/api/v1/runs/"+first.ID, &detail); st != 200 || detail.Run.ID != first.ID {
		t.Fatalf("detail %d %+v", st, detail)
	}
	if len(detail.Attempts) != 1 || detail.Attempts[0].State != "claimed" || detail.Attempts[0].Executor != "remote_worker" ||
		len(detail.Events) != 2 || detail.Events[0].Name != "run.created" || detail.Events[1].Name != "run.queued" || detail.Events[1].Payload == nil {
		t.Fatalf("detail %+v", detail)
	}

	var e struct {
		Error struct{ Code, Message string }
	}
	if st := getJSON(t, srv.URL+"/api/v1/runs/0190a4f2-0000-7000-8000-000000000000", &e); st != 404 || e.Error.Code != "not_found" {
		t.Fatalf("missing run %d %+v", st, e)
	}
	if st := getJSON(t, srv.URL+"/api/v1/runs/not-a-run", &e); st != 400 || e.Error.Code != "invalid" {
		t.Fatalf("malformed run id %d %+v", st, e)
	}

	var triggers struct {
		Triggers []struct {
			Name              string
			NextFireAtMs      *int64
			LastScheduledAtMs *int64
			ClaimOwner        *string
			Cron              struct{ Expression, Timezone, MisfirePolicy string }
		}
	}
	if st := getJSON(t, srv.URL+"/api/v1/triggers?project="+first.ProjectID, &triggers); st != 200 || len(triggers.Triggers) != 3 {
		t.Fatalf("triggers %d %+v", st, triggers)
	}
	for _, tr := range triggers.Triggers {
		if tr.NextFireAtMs == nil || tr.LastScheduledAtMs == nil || tr.ClaimOwner != nil || tr.Cron.Expression != expr || tr.Cron.MisfirePolicy != "fire_once" {
			t.Fatalf("trigger %+v: want next fire and last scheduled set, claim cleared", tr)
		}
	}

	var one struct {
		Trigger   struct{ TriggerID, Name string }
		NextFires []struct{ AtMs int64 }
		Runs      []struct{ ID string }
		Ledger    []struct{ Reason string }
	}
	if st := getJSON(t, srv.URL+"/api/v1/triggers/"+first.TriggerID+"?ledger=5", &one); st != 200 || one.Trigger.TriggerID != first.TriggerID ||
		len(one.NextFires) != 5 || len(one.Runs) != 1 || one.Runs[0].ID != first.ID || one.Ledger == nil {
		t.Fatalf("trigger detail %d %+v", st, one)
	}
	if st := getJSON(t, srv.URL+"/api/v1/triggers/0190a4f2-0000-7000-8000-000000000000", &e); st != 404 || e.Error.Code != "not_found" {
		t.Fatalf("missing trigger %d %+v", st, e)
	}
}
