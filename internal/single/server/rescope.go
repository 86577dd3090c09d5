package server

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/subscription"
	"github.com/qinglong/qinglong/internal/core/task"
)

// The diagnostic codes of the start's publish of subscriptions' pull
// tasks whose credential helper an earlier release wrote for every URL:
// those it scoped, and why it scoped none or not all.
const (
	CodeSubscriptionsRescoped    = "serve.subscriptions_rescoped"
	CodeSubscriptionsNotRescoped = "serve.subscriptions_not_rescoped"
)

// rescopeSubscriptions publishes again, before the scheduler's first
// round, every subscription's pull task still giving git its token for
// every URL, scoped to its own scheme, host and port
// (subscription.Rescope): the scripts an earlier release wrote would
// otherwise keep sending the token where a redirect or a submodule leads
// until each subscription's next edit. Under a clock hold it publishes
// nothing, as no write is taken then, and says so: the next start does
// it. A refusal is said, never the start's failure: that subscription
// pulls as before, and an edit of it on the Subscriptions page scopes it.
func (s *Server) rescopeSubscriptions(ctx context.Context) {
	if s.clockHold.holding() {
		s.cfg.Logger.Warn("subscriptions' pull tasks written before their credential helper was scoped to their own host are not published again while the clock reads behind the database; the next start does it",
			"code", CodeSubscriptionsNotRescoped, "error", s.clockHold.refusal().Error())
		return
	}
	svc := catalog.Service{Store: s.store, Executor: task.LocalProcess, NowMs: s.cfg.NowMs}
	done, err := subscription.Rescope(ctx, s.store, svc, subscription.RescopeActor, true)
	if len(done) > 0 {
		names := make([]string, len(done))
		for i, d := range done {
			names[i] = d.Project + "/" + d.Name
		}
		s.cfg.Logger.Info("published again the pull tasks of subscriptions written before their credential helper was scoped to their own scheme, host and port",
			"code", CodeSubscriptionsRescoped, "subscriptions", names)
	}
	if err != nil {
		s.cfg.Logger.Warn("some subscriptions' pull tasks still give git their token for every host: save each on the Subscriptions page (or apply its ql repo line again) to scope it",
			"code", CodeSubscriptionsNotRescoped, "error", err.Error())
	}
}
