package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/triggerref"
)

// notificationsPage is how many notifications a page of the list shows.
const notificationsPage = 50

// overviewDead is how many dead notifications the overview counts before
// it says "more than".
const overviewDead = 100

// refusalCannotNotify: the server has no outbox to show or retry.
const refusalCannotNotify qlerror.Reason = "console_cannot_list_notifications"

// notificationFilters are the list's filters a retry's form carries back
// to the list it was sent from.
var notificationFilters = []string{"project", "state", "after"}

func (c *Console) errNoNotifications() error {
	return qlerror.New(qlerror.FailedPrecondition, "this server cannot list or retry notifications; use `ql notifications`").Because(refusalCannotNotify)
}

// notifications lists the outbox newest first, by project (chosen by
// name) and state, a page after the cursor; a dead one offers Retry to an
// operate session. A filter that cannot be read is answered on the page
// itself, beside the fields as they were given.
func (c *Console) notifications(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Notifications == nil {
		c.fail(w, r, s, c.errNoNotifications())
		return
	}
	q := r.URL.Query()
	f := map[string]string{"project": q.Get("project"), "state": q.Get("state"), "after": q.Get("after")}
	projects, err := c.projectChoices(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	data := map[string]any{"F": f, "States": notify.States, "Projects": projects, "NowMs": c.cfg.NowMs()}
	if id := q.Get("retried"); ids.Validate("retried", id) == nil {
		data["Retried"] = id
	}
	var list []notify.Message
	var next string
	pick, redirect, err := c.pickProject(r)
	if redirect != "" {
		http.Redirect(w, r, redirect, http.StatusFound)
		return
	}
	if err == nil {
		f["project"], data["Projects"] = pick.Name, withChosen(projects, pick.named())
		data["Channels"], err = c.projectChannels(r.Context(), pick.Name)
		data["CanTest"] = c.cfg.TryChannel != nil
	}
	if err == nil {
		list, next, err = c.cfg.Notifications.NotificationsList(r.Context(), notify.ListQuery{ProjectID: pick.ID, State: notify.State(f["state"]),
			After: f["after"], Limit: notificationsPage, InProjects: boundOf(r.Context()).in()})
	}
	if err != nil {
		if qlerror.CodeOf(err) != qlerror.Invalid {
			c.fail(w, r, s, err)
			return
		}
		data["Error"] = c.errorText(lang(r), err)
		c.render(w, r, http.StatusBadRequest, "notifications", s, data)
		return
	}
	if next != "" {
		v := url.Values{"after": {next}}
		for _, k := range []string{"project", "state"} {
			if f[k] != "" {
				v.Set(k, f[k])
			}
		}
		data["NextURL"] = "/notifications?" + v.Encode()
	}
	// The rule's scope, as ql notifications list shows it: two rules of
	// one event and channel differ only in what they cover.
	if c.cfg.Export != nil {
		if err := apply.WithRuleScopes(r.Context(), c.cfg.Export, list); err != nil {
			c.fail(w, r, s, err)
			return
		}
		data["Scoped"] = true
	}
	if data["TriggerIDs"], err = c.notifiedTriggers(r.Context(), list); err != nil {
		c.fail(w, r, s, err)
		return
	}
	data["List"] = list
	c.render(w, r, http.StatusOK, "notifications", s, data)
}

// notifiedTriggers is the id of the trigger each notification of list is
// about, by the notification's id, for those whose trigger still exists:
// a notification names its trigger by project and name as they were when
// it was written, and links to its page only while the project still has
// a trigger of that name. Each project's triggers are listed once.
func (c *Console) notifiedTriggers(ctx context.Context, list []notify.Message) (map[string]string, error) {
	out := map[string]string{}
	if c.cfg.Triggers == nil {
		return out, nil
	}
	byProject := map[string]map[string]string{}
	for _, m := range list {
		if m.Payload.Trigger == "" {
			continue
		}
		names, listed := byProject[m.ProjectID]
		if !listed {
			var err error
			if names, err = triggerref.IDsByName(ctx, c.cfg.Triggers, m.ProjectID); err != nil {
				return nil, err
			}
			byProject[m.ProjectID] = names
		}
		if id, ok := names[m.Payload.Trigger]; ok {
			out[m.ID] = id
		}
	}
	return out, nil
}

// retryNotification makes a dead notification pending again, as `ql
// notifications retry` does, and goes back to the list it was sent from,
// which says so. The row records the session's actor as who asked, and
// the log says it too.
func (c *Console) retryNotification(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Notifications == nil {
		c.fail(w, r, s, c.errNoNotifications())
		return
	}
	m, err := c.cfg.Notifications.NotificationRetry(r.Context(), r.PathValue("id"), s.actor(r))
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	c.cfg.Log.Info("console: notification retried", "code", notify.CodeRetried, "notification", m.ID, "actor", s.actor(r))
	back := url.Values{"retried": {m.ID}}
	for _, k := range notificationFilters {
		if v := r.PostFormValue(k); v != "" {
			back.Set(k, v)
		}
	}
	http.Redirect(w, r, "/notifications?"+back.Encode(), http.StatusSeeOther)
}

// deadNotifications counts the dead notifications for the overview, up to
// overviewDead (more says there are more); nil when the server has no
// outbox to read.
func (c *Console) deadNotifications(ctx context.Context) (*deadCount, error) {
	if c.cfg.Notifications == nil {
		return nil, nil
	}
	list, next, err := c.cfg.Notifications.NotificationsList(ctx, notify.ListQuery{State: notify.Dead, Limit: overviewDead, InProjects: boundOf(ctx).in()})
	if err != nil {
		return nil, err
	}
	return &deadCount{N: len(list), More: next != ""}, nil
}

// deadCount is the overview's count of dead notifications.
type deadCount struct {
	N    int
	More bool
}

// ruleText names in l the rule a notification was sent by: its event, with
// the length of the streak of a consecutive_failures rule, the reason of a
// skipped one and how the Run ended for a finished one.
func ruleText(l string, m notify.Message) string {
	text := word(l, "event", m.Event)
	switch {
	case m.Event == notify.OnFinished && m.Payload.RunState != "":
		return text + " — " + word(l, "run", m.Payload.RunState)
	case m.Event == notify.OnConsecutiveFailures && m.Payload.ConsecutiveFailures > 0:
		return fmt.Sprintf(tr(l, "nt.streak"), m.Payload.ConsecutiveFailures)
	case m.Event == notify.OnSkipped && m.Payload.Reason != "":
		return text + " — " + word(l, "passed", m.Payload.Reason)
	}
	return text
}

// scopeText says in l what the rule a notification was sent by covers,
// as the project's definitions have that rule now: the whole project, or
// the triggers and tasks it names; nil is a rule they no longer have.
func scopeText(l string, sc *notify.RuleScope) string {
	if sc == nil {
		return tr(l, "nt.scope.gone")
	}
	if len(sc.Triggers) == 0 && len(sc.Tasks) == 0 {
		return fmt.Sprintf(tr(l, "nt.scope.project"), sc.Project)
	}
	var parts []string
	if len(sc.Triggers) > 0 {
		parts = append(parts, fmt.Sprintf(tr(l, "nt.scope.triggers"), strings.Join(sc.Triggers, ", ")))
	}
	if len(sc.Tasks) > 0 {
		parts = append(parts, fmt.Sprintf(tr(l, "nt.scope.tasks"), strings.Join(sc.Tasks, ", ")))
	}
	return strings.Join(parts, "; ")
}

// notificationsRefusalsZH say in Chinese the refusals of the notifications
// page and of a retry.
var notificationsRefusalsZH = map[qlerror.Reason]string{
	notify.RefusalNotANotificationID:  "这不是通知 ID：请使用通知页或 `ql notifications list` 列出的 ID。",
	notify.RefusalNotificationMissing: "该通知不存在（已送达和无法送达的通知在超过 --retention-notifications 后会被删除）；通知页列出现有的通知。",
	notify.RefusalNotificationNotDead: "该通知现在是“{notification}”状态，只有无法送达（dead）的通知才能重试；它可能已被重试过。",
	notify.RefusalNotificationState:   "通知状态须是 pending（待发送）、delivered（已送达）或 dead（无法送达）之一。",
	refusalCannotNotify:               "此服务器不能列出或重试通知；请使用 `ql notifications`。",
	refusalCannotTestChannels:         "此服务器不能发送测试消息；请使用 `ql notifications test`。",
}
