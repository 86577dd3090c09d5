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

// channelTry sends one test message to a channel of the path's project,
// as `ql notifications test` does, and answers its outcome: 200 whether
// the receiver took it or not (delivered says which, reason and error
// why not), since the request itself was served. Nothing is recorded:
// no notification, no attempt. The log says who asked and the outcome,
// never the channel's URL.
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
	name := r.PathValue("project")
	p, c, err := apply.ProjectChannel(ctx, a.Export, name, r.PathValue("name"), tokenOf(ctx).Projects)
	if err != nil {
		return nil, boundMissing(ctx, name, err)
	}
	trial := a.TryChannel(ctx, p.ID, p.Name, c)
	a.Log.Info("notification channel tested", slog.String("code", notify.CodeTested), slog.String("project", p.Name), slog.String("channel", c.Name), slog.Bool("delivered", trial.Delivered),
		slog.String("reason_code", string(trial.Failure.Reason)), slog.String("actor", principalOf(ctx).actor()))
	return view.NewChannelTrial(p.Name, c, trial), nil
}
