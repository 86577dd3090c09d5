package sqlitestore

import (
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
)

// Every outbox listing a person can ask for — of one state, of one
// project, of both, after a cursor or not — is a search of one index in
// the listing's order, never a scan of the outbox nor a sort of it, so a
// page costs its rows and not the outbox's size (SQLite plans without
// statistics here, as on a server that never ran ANALYZE).
func TestEveryOutboxListingIsOneIndexSearchInItsOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	project, after := ids.New(), ids.New()
	for _, q := range []notify.ListQuery{
		{}, {After: after},
		{State: notify.Dead}, {State: notify.Pending, After: after},
		{ProjectID: project}, {ProjectID: project, After: after},
		{State: notify.Dead, ProjectID: project}, {State: notify.Delivered, ProjectID: project, After: after},
	} {
		q.Limit = notify.DefaultListed
		stmt, args := notifyListQuery(q)
		plan := strings.Join(e.queryPlan(t, stmt, args...), "\n")
		// The index alone (COVERING) when it holds every filtered column.
		state := "INDEX notification_outbox_state_listing (state=?"
		projectIndex := "INDEX notification_outbox_project_listing (project_id=?"
		want := []string{"INDEX sqlite_autoindex_notification_outbox_1"}
		switch {
		case q.State != "" && q.ProjectID != "":
			// Either range, the other filter on its rows, as for Runs.
			want = []string{state, projectIndex}
		case q.State != "":
			want = []string{state}
		case q.ProjectID != "":
			want = []string{projectIndex}
		}
		if !slices.ContainsFunc(want, func(w string) bool { return strings.Contains(plan, w) }) || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("listing %+v:\n%s\nwant one of %q, in the listing's order (no temporary b-tree)", q, plan, want)
		}
	}
}

// Every outbox listing finds its page's ids before it returns its first
// row (pageFirst): a listing of one state within a project walks past the
// project's rows of other states, and the request's context ending stops
// that walk.
func TestAnOutboxListingFindsItsPageBeforeItsFirstRow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	project, after := ids.New(), ids.New()
	for _, q := range []notify.ListQuery{
		{}, {After: after}, {State: notify.Dead}, {ProjectID: project},
		{State: notify.Dead, ProjectID: project}, {State: notify.Delivered, ProjectID: project, After: after},
	} {
		q.Limit = notify.DefaultListed
		stmt, args := notifyListQuery(q)
		plan := strings.Join(e.queryPlan(t, stmt, args...), "\n")
		if !pageFirst(plan, "notification_outbox", "sqlite_autoindex_notification_outbox_1") {
			t.Errorf("listing %+v:\n%s\nwant its page's ids found first (LIST SUBQUERY), then its rows read by id", q, plan)
		}
	}
}
