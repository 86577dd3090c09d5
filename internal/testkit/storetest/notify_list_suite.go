package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// testOutboxListing: a listing is newest first, keeps exactly the rows of
// its state and project, and pages through them by its cursor without
// losing or repeating one, whatever the page size: the last page says no
// page follows, also when it is exactly full.
func testOutboxListing(t *testing.T, f Fixture) {
	ctx := t.Context()
	alpha := notifyDefs(t, f, "alpha", notify.Rule{On: notify.OnFailed, Channel: "ops"})
	beta := notifyDefs(t, f, "beta", notify.Rule{On: notify.OnFailed, Channel: "ops"})
	for i := range 4 {
		runFinished(t, f, alpha.Trigger.TriggerID, i, run.AttemptFailed)
		if i < 3 {
			runFinished(t, f, beta.Trigger.TriggerID, i, run.AttemptFailed)
		}
	}
	claimed, err := f.Outbox.NotificationsClaim(ctx, claimTen)
	if err != nil || len(claimed) != 7 {
		t.Fatalf("claim: %d rows (%v), want the 7 the failed Runs owe", len(claimed), err)
	}
	for i, m := range claimed {
		switch i % 3 {
		case 0:
			err = f.Outbox.NotificationFailed(ctx, m.ID, m.Attempts, 0, true, notify.Failure{Reason: notify.ReasonReceiverStatus, Text: "the receiver answered 503"})
		case 1:
			err = f.Outbox.NotificationDelivered(ctx, m.ID)
		default:
			err = f.Outbox.NotificationFailed(ctx, m.ID, m.Attempts, 0, false, notify.Failure{Reason: notify.ReasonReceiverStatus, Text: "the receiver answered 502"})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	all := outbox(t, f)
	if len(all) != 7 {
		t.Fatalf("%d rows listed, want 7", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].ID >= all[i-1].ID {
			t.Fatalf("row %d (%s) is listed after %s: want newest first, by id", i, all[i].ID, all[i-1].ID)
		}
	}
	for _, q := range []notify.ListQuery{
		{},
		{State: notify.Dead}, {State: notify.Delivered}, {State: notify.Pending},
		{ProjectID: alpha.Project.ID}, {ProjectID: beta.Project.ID},
		{ProjectID: alpha.Project.ID, State: notify.Dead}, {ProjectID: beta.Project.ID, State: notify.Pending},
		{ProjectID: ids.New()},
	} {
		var want []string
		for _, m := range all {
			if (q.State == "" || m.State == q.State) && (q.ProjectID == "" || m.ProjectID == q.ProjectID) {
				want = append(want, m.ID)
			}
		}
		for _, size := range []int{1, 2, 3, max(len(want), 1)} {
			q.Limit = size
			got := listPages(t, f, q)
			if !slices.Equal(got, want) {
				t.Fatalf("state %q, project %q, %d a page: %v, want %v", q.State, q.ProjectID, size, got, want)
			}
		}
	}
}

// listPages follows q's cursor to the end, checking each page, and returns
// the ids listed in order.
func listPages(t *testing.T, f Fixture, q notify.ListQuery) []string {
	t.Helper()
	var out []string
	for page := 0; ; page++ {
		rows, next, err := f.Outbox.NotificationsList(t.Context(), q)
		if err != nil {
			t.Fatalf("page %d of %+v: %v", page, q, err)
		}
		for _, m := range rows {
			out = append(out, m.ID)
		}
		if next == "" {
			if len(rows) > q.Limit {
				t.Fatalf("page %d of %+v holds %d rows", page, q, len(rows))
			}
			return out
		}
		if len(rows) != q.Limit || next != rows[len(rows)-1].ID {
			t.Fatalf("page %d of %+v: %d rows and cursor %s; a page that another follows is full and its cursor is its last id", page, q, len(rows), next)
		}
		if page > 10 {
			t.Fatalf("%+v still pages after %d pages", q, page)
		}
		q.After = next
	}
}

// testOutboxListingRefusals: a listing's state that is none, or a project
// or cursor that is no id, is refused as invalid with its reason, as is a
// page size outside 1–MaxListed; no size gives the default.
func testOutboxListingRefusals(t *testing.T, f Fixture) {
	d := notifyDefs(t, f, "alpha", notify.Rule{On: notify.OnFailed, Channel: "ops"})
	runFinished(t, f, d.Trigger.TriggerID, 1, run.AttemptFailed)
	for _, c := range []struct {
		q      notify.ListQuery
		reason qlerror.Reason
	}{
		{notify.ListQuery{State: "failed"}, notify.RefusalNotificationState},
		{notify.ListQuery{After: "not-an-id"}, run.RefusalListNotAnID},
		{notify.ListQuery{ProjectID: "alpha"}, run.RefusalListNotAnID},
		{notify.ListQuery{Limit: -1}, ""},
		{notify.ListQuery{Limit: notify.MaxListed + 1}, ""},
	} {
		_, _, err := f.Outbox.NotificationsList(t.Context(), c.q)
		requireCode(t, err, qlerror.Invalid, fmt.Sprintf("listing %+v", c.q))
		if c.reason != "" && qlerror.ReasonOf(err) != c.reason {
			t.Fatalf("listing %+v: reason %q, want %q", c.q, qlerror.ReasonOf(err), c.reason)
		}
	}
	rows, next, err := f.Outbox.NotificationsList(t.Context(), notify.ListQuery{})
	if err != nil || len(rows) != 1 || next != "" {
		t.Fatalf("a listing of no page size: %d rows, cursor %q (%v); want the one row at the default size", len(rows), next, err)
	}
}

// testOutboxRetryRefusals: a retry of an id that is none, of a row that
// does not exist, and of a row that is not dead is refused with its reason
// (the last naming the row's state) and changes nothing.
func testOutboxRetryRefusals(t *testing.T, f Fixture) {
	ctx := t.Context()
	d := notifyDefs(t, f, "alpha", notify.Rule{On: notify.OnFailed, Channel: "ops"})
	runFinished(t, f, d.Trigger.TriggerID, 1, run.AttemptFailed)
	pending := outbox(t, f)[0]
	for _, c := range []struct {
		id     string
		code   qlerror.Code
		reason qlerror.Reason
		state  string
	}{
		{"not-an-id", qlerror.Invalid, notify.RefusalNotANotificationID, ""},
		{ids.New(), qlerror.NotFound, notify.RefusalNotificationMissing, ""},
		{pending.ID, qlerror.FailedPrecondition, notify.RefusalNotificationNotDead, "pending"},
	} {
		_, err := f.Outbox.NotificationRetry(ctx, c.id, "ops")
		requireCode(t, err, c.code, "retry of "+c.id)
		if qlerror.ReasonOf(err) != c.reason || qlerror.ParamsOf(err)["notification"] != c.state {
			t.Fatalf("retry of %s: reason %q with %v, want %q with state %q", c.id, qlerror.ReasonOf(err), qlerror.ParamsOf(err), c.reason, c.state)
		}
	}
	if got := outbox(t, f); len(got) != 1 || got[0].State != notify.Pending || got[0].Attempts != pending.Attempts || got[0].NextAttemptAtMs != pending.NextAttemptAtMs {
		t.Fatalf("after the refused retries the row is %+v, want it as it was: %+v", got, pending)
	}
}
