package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// refusalCannotTestChannels: the server sends no test messages.
const refusalCannotTestChannels qlerror.Reason = "console_cannot_test_channels"

// channelSettings is a channel as the Notifications page shows it,
// read-only: its kind, where it sends (Target: secrets by name only), the
// events of the rules that send to it, its language and its zone.
type channelSettings struct {
	notify.Channel
	Target string
	On     []notify.Event
}

// projectChannels are the channels of the project named name, as its
// definitions have them now, for the Notifications page to show and to
// offer Send test for; none where the server reads no definitions or no
// project is chosen.
func (c *Console) projectChannels(ctx context.Context, name string) ([]channelSettings, error) {
	if name == "" || c.cfg.Export == nil {
		return nil, nil
	}
	// The project alone: no task or trigger is read.
	d, err := c.cfg.Export.ProjectDefinitions(ctx, name, 0)
	if err != nil {
		return nil, err
	}
	spec, err := notify.Decode(d.Project.Notifications)
	if err != nil {
		return nil, err
	}
	out := make([]channelSettings, len(spec.Channels))
	for i, ch := range spec.Channels {
		out[i] = channelSettings{Channel: ch, Target: ch.Target()}
		for _, rule := range spec.Rules {
			if rule.Channel == ch.Name && !slices.Contains(out[i].On, rule.On) {
				out[i].On = append(out[i].On, rule.On)
			}
		}
	}
	return out, nil
}

// testChannel sends one test message to the path's channel, as `ql
// notifications test` does, and goes back to the project's notifications,
// which say how it went: delivered with the receiver's status, or why
// not, with what the receiver said (its secrets masked). No notification
// is recorded; the audit trail records who tested which channel and how
// it went, and a record that cannot be written is said beside the
// outcome, which it does not hide (notify.RecordTrial); the log says who
// asked.
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
	actor := s.actor(r)
	c.cfg.Log.Info("console: notification channel tested", "code", notify.CodeTested, "project", p.Name, "channel", ch.Name, "delivered", t.Delivered,
		"reason_code", string(t.Failure.Reason), "actor", actor)
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
	if c.cfg.ChannelTests != nil {
		if err := notify.RecordTrial(r.Context(), c.cfg.ChannelTests, actor, p.Name, ch, t); err != nil {
			c.cfg.Log.Error("console: channel test not recorded", "code", audit.CodeNotRecorded, "action", string(audit.ChannelTested), "project", p.Name, "channel", ch.Name, "actor", actor, "error", err.Error())
			msg += " " + tr(l, "nt.test.unrecorded")
		}
	}
	c.redirectWith(w, r, s, "/notifications?"+url.Values{"project": {p.Name}}.Encode(), flash{Message: msg})
}
