package pgstore

import (
	"sort"
	"testing"

	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/run"
)

func TestRunGetReturnsTheAdmittedRunWithItsAttemptAndEvents(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projectID, runs := s.admitRuns(t, "detail", 1)
	d, err := s.runtime.RunGet(t.Context(), runs["t000"])
	if err != nil {
		t.Fatal(err)
	}
	r := d.Run
	if r.ID != runs["t000"] || r.ProjectID != projectID || r.State != run.Queued || r.Version != 2 || r.LastEventSeq != 2 ||
		r.TriggerID == "" || r.QueuedAtMs != r.CreatedAtMs || r.IdempotencyKey == "" || r.FinishedAtMs != nil ||
		r.ProjectName != "detail" || r.TriggerName != "t000" {
		t.Fatalf("run %+v", r)
	}
	if len(d.Attempts) != 1 || d.Attempts[0].Number != 1 || d.Attempts[0].State != run.AttemptClaimed || d.Attempts[0].Executor != "remote_worker" {
		t.Fatalf("attempts %+v", d.Attempts)
	}
	if len(d.Events) != 2 || d.Events[0].Seq != 1 || d.Events[0].Name != run.EventCreated || d.Events[1].Seq != 2 || d.Events[1].Name != run.EventQueued {
		t.Fatalf("events %+v", d.Events)
	}
}

func TestRunGetNamesAMissingOrMalformedID(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	if _, err := s.runtime.RunGet(t.Context(), "0190a4f2-0000-7000-8000-000000000000"); !qlerror.Is(err, qlerror.NotFound) {
		t.Fatalf("missing run: %v, want not_found", err)
	}
	if _, err := s.runtime.RunGet(t.Context(), "42; DROP TABLE runs"); !qlerror.Is(err, qlerror.Invalid) {
		t.Fatalf("malformed id: %v, want invalid", err)
	}
}

func TestRunListPagesNewestFirstWithEveryFilter(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projA, runsA := s.admitRuns(t, "list-a", 5)
	_, runsB := s.admitRuns(t, "list-b", 2)
	s.exec(t, `UPDATE qinglong.runs SET state = 'running' WHERE id = $1`, runsA["t003"])

	var all []string
	for _, m := range []map[string]string{runsA, runsB} {
		for _, id := range m {
			all = append(all, id)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(all)))

	names := map[string]string{}
	for proj, m := range map[string]map[string]string{"list-a": runsA, "list-b": runsB} {
		for trig, id := range m {
			names[id] = proj + "/" + trig
		}
	}
	var paged []string
	p := run.ListParams{Limit: 3}
	for pages := 0; ; pages++ {
		list, next, err := s.runtime.RunList(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) > 3 || pages > 3 {
			t.Fatalf("page of %d after %d pages", len(list), pages)
		}
		for _, r := range list {
			paged = append(paged, r.ID)
			if got := r.ProjectName + "/" + r.TriggerName; got != names[r.ID] {
				t.Fatalf("run %s listed as %s, want %s", r.ID, got, names[r.ID])
			}
		}
		if next == "" {
			break
		}
		p.After = next
	}
	if len(paged) != len(all) {
		t.Fatalf("paged %d runs, want %d", len(paged), len(all))
	}
	for i := range all {
		if paged[i] != all[i] {
			t.Fatalf("position %d: %s, want %s (newest first by id)", i, paged[i], all[i])
		}
	}

	cases := []struct {
		name string
		p    run.ListParams
		want int
	}{
		{"project", run.ListParams{ProjectID: projA}, 5},
		{"trigger", run.ListParams{TriggerID: triggerOf(t, s, runsA["t001"])}, 1},
		{"state", run.ListParams{State: run.Running}, 1},
		{"project and state", run.ListParams{ProjectID: projA, State: run.Queued}, 4},
	}
	for _, c := range cases {
		list, next, err := s.runtime.RunList(t.Context(), c.p)
		if err != nil || len(list) != c.want || next != "" {
			t.Errorf("%s: %d runs (next %q, err %v), want %d", c.name, len(list), next, err, c.want)
		}
	}
}

func triggerOf(t *testing.T, s *store, runID string) string {
	t.Helper()
	var id string
	if err := s.super.QueryRow(t.Context(), `SELECT trigger_id FROM qinglong.runs WHERE id = $1`, runID).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestRunListRejectsBadFiltersNamingThem(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	for _, p := range []run.ListParams{
		{Limit: run.MaxPageSize + 1},
		{ProjectID: "demo"},
		{TriggerID: "x"},
		{After: "1"},
		{State: "sleeping"},
	} {
		if _, _, err := s.runtime.RunList(t.Context(), p); !qlerror.Is(err, qlerror.Invalid) {
			t.Errorf("%+v: %v, want invalid", p, err)
		}
	}
}
