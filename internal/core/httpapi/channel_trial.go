package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/view"
)

// channelTry sends one test message to a channel of the path's project
// (by name, or by id as a pause's path takes it), as `ql notifications
// test` does, and answers its outcome: 200 whether the receiver took it
// or not (delivered says which, reason and error why not), since the
// request itself was served. No notification or attempt is recorded; the
// audit trail records who tested which channel and the outcome, and a
// record that cannot be written is answered 503 audit_not_recorded,
// saying the outcome all the same (notify.RecordTrial). The log says who
// asked and the outcome, never the channel's URL.
func (a *api) channelTry(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	if a.TryChannel == nil || a.Export == nil {
		return nil, qlerror.New(qlerror.FailedPrecondition, "this server cannot send test messages over the API; upgrade it, or run `ql notifications test` where its database is").Because(RefusalNotOverTheAPI)
	}
	var body struct{}
	if err := a.decodeBody(r, &body); err != nil {
		return nil, err
	}
	name, err := a.projectNamed(ctx, r.PathValue("project"))
	if err != nil {
		return nil, boundMissing(ctx, r.PathValue("project"), err)
	}
	p, c, err := apply.ProjectChannel(ctx, a.Export, name, r.PathValue("name"), tokenOf(ctx).Projects)
	if err != nil {
		return nil, boundMissing(ctx, name, err)
	}
	trial := a.TryChannel(ctx, p.ID, p.Name, c)
	actor := principalOf(ctx).actor()
	a.Log.Info("notification channel tested", slog.String("code", notify.CodeTested), slog.String("project", p.Name), slog.String("channel", c.Name), slog.Bool("delivered", trial.Delivered),
		slog.String("reason_code", string(trial.Failure.Reason)), slog.String("actor", actor))
	if a.ChannelTests != nil {
		if err := notify.RecordTrial(ctx, a.ChannelTests, actor, p.Name, c, trial); err != nil {
			a.Log.Error("channel test not recorded", slog.String("code", audit.CodeNotRecorded), slog.String("action", string(audit.ChannelTested)),
				slog.String("project", p.Name), slog.String("channel", c.Name), slog.String("actor", actor), slog.String("error", err.Error()))
			return nil, err
		}
	}
	return view.NewChannelTrial(p.Name, c, trial), nil
}

// projectNamed is the name of the project a path's {project} names: the
// name itself, or, for an id (the pause routes' older links take one), the
// name of the project that has it; an id no project has is
// project_missing, naming the projects there are.
func (a *api) projectNamed(ctx context.Context, raw string) (string, error) {
	id, isID := canonicalID(raw)
	if !isID {
		return raw, nil
	}
	name, err := a.Export.ProjectNameOf(ctx, id)
	if err != nil || name != "" {
		return name, err
	}
	return "", apply.ProjectMissing(ctx, a.Export, raw, tokenOf(ctx).Projects)
}
