package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// refusalCannotTestChannels: the server sends no test messages.
const refusalCannotTestChannels qlerror.Reason = "console_cannot_test_channels"

// testableChannels are the channels of the project named name the
// Notifications page offers Send test for, as its definitions have them
// now; none where the server sends no test messages or no project is
// chosen.
func (c *Console) testableChannels(ctx context.Context, name string) ([]notify.Channel, error) {
	if name == "" || c.cfg.TryChannel == nil || c.cfg.Export == nil {
		return nil, nil
	}
	// The project alone: no task or trigger is read.
	d, err := c.cfg.Export.ProjectDefinitions(ctx, name, 0)
	if err != nil {
		return nil, err
	}
	spec, err := notify.Decode(d.Project.Notifications)
	return spec.Channels, err
}

// testChannel sends one test message to the path's channel, as `ql
// notifications test` does, and goes back to the project's notifications,
// which say how it went: delivered with the receiver's status, or why
// not, with what the receiver said (its secrets masked). Nothing is
// recorded; the log says who asked.
func (c *Console) testChannel(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.TryChannel == nil || c.cfg.Export == nil {
		c.fail(w, r, s, qlerror.New(qlerror.FailedPrecondition, "this server cannot send test messages; use `ql notifications test`").Because(refusalCannotTestChannels))
		return
	}
	p, ch, err := apply.ProjectChannel(r.Context(), c.cfg.Export, r.PathValue("project"), r.PathValue("name"), boundOf(r.Context()).in())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	t := c.cfg.TryChannel(r.Context(), p.ID, p.Name, ch)
	c.cfg.Log.Info("console: notification channel tested", "code", notify.CodeTested, "project", p.Name, "channel", ch.Name, "delivered", t.Delivered,
		"reason_code", string(t.Failure.Reason), "actor", s.actor(r))
	l := lang(r)
	var msg string
	switch {
	case !t.Delivered:
		msg = fmt.Sprintf(tr(l, "nt.test.failed"), ch.Name, failureWhy(l, t.Failure.Reason), t.Failure.Text)
	case t.Status == 0:
		msg = fmt.Sprintf(tr(l, "nt.test.mail"), ch.Name)
	default:
		msg = fmt.Sprintf(tr(l, "nt.test.ok"), ch.Name, t.Status)
	}
	c.redirectWith(w, r, s, "/notifications?"+url.Values{"project": {p.Name}}.Encode(), flash{Message: msg})
}
