package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/view"
)

var errNoNotifications = qlerror.New(qlerror.FailedPrecondition, "this server cannot list or retry notifications over the API; use `ql notifications`").Because(RefusalNotOverTheAPI)

// notificationList lists the outbox newest first, as `ql notifications
// list` does, by state and project, a page after the cursor.
func (a *api) notificationList(ctx context.Context, r *http.Request) (any, error) {
	q, err := params(r.URL.Query(), "after", "limit", "project", "state")
	if err != nil {
		return nil, err
	}
	if a.Notifications == nil {
		return nil, errNoNotifications
	}
	n, err := count("limit", q["limit"], notify.DefaultListed, notify.MaxListed)
	if err != nil {
		return nil, err
	}
	project, err := a.listingProject(ctx, q["project"])
	if err != nil {
		return nil, err
	}
	if project, err = idParam("project", project, projectIDHint); err != nil {
		return nil, err
	}
	after, err := idParam("after", q["after"], cursorHint)
	if err != nil {
		return nil, err
	}
	rows, next, err := a.Notifications.NotificationsList(ctx, notify.ListQuery{State: notify.State(q["state"]), ProjectID: project, After: after, Limit: n, InProjects: tokenOf(ctx).Projects})
	if err != nil {
		return nil, err
	}
	if a.Export != nil {
		if err := apply.WithRuleScopes(ctx, a.Export, rows); err != nil {
			return nil, err
		}
	}
	return view.NewNotificationList(rows, next), nil
}

// notificationRetry makes a dead notification pending again, with the same
// idempotency key and its attempts kept, the retry by hand recorded, as
// `ql notifications retry` does. It creates nothing, so it takes no
// request id: asked again once it took, it is refused as no longer dead
// (409, notification_not_dead). The row records the token and address
// as who asked, and the log says it too.
func (a *api) notificationRetry(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	if a.Notifications == nil {
		return nil, errNoNotifications
	}
	var body struct{}
	if err := a.decodeBody(r, &body); err != nil {
		return nil, err
	}
	m, err := a.Notifications.NotificationRetry(ctx, r.PathValue("id"), principalOf(ctx).actor())
	if err != nil {
		return nil, err
	}
	a.Log.Info("notification retried", slog.String("code", notify.CodeRetried), slog.String("notification", m.ID),
		slog.String("actor", principalOf(ctx).actor()))
	return view.NewNotificationRetry(m), nil
}
