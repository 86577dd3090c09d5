package catalog

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// EnableRequest enables or disables a trigger, named by project and name.
// Actor is who asked, for the audit trail.
type EnableRequest struct {
	ProjectID string
	Name      string
	Enabled   bool
	Actor     string
}

// EnableResult is a trigger's state after an EnableRequest. Changed is
// false when it already was in the state asked for (nothing is written);
// Revision is its current revision, CreatedAtMs when that was published.
type EnableResult struct {
	Changed     bool
	Enabled     bool
	Revision    int64
	CreatedAtMs int64
}

// TriggerEnabler enables and disables triggers.
type TriggerEnabler interface {
	TriggerSetEnabled(ctx context.Context, r EnableRequest) (EnableResult, error)
}

var _ TriggerEnabler = Service{}

// TriggerSetEnabled publishes the trigger's current revision again with
// only `enabled` flipped: a new revision with its digest, under the same
// fences as every publish (a concurrent publish makes it a Conflict), with
// an audit record in its transaction. While a trigger is disabled no
// occurrence of it runs; the publish that enables it again records them
// in the occurrence ledger as disabled, and none is caught up. Asking for
// the state the trigger is in writes nothing, so a retried request is
// harmless. A trigger whose stored cron this host cannot read (a zone its
// zone database lacks) is refused (schedule.CheckStoredCron).
func (s Service) TriggerSetEnabled(ctx context.Context, r EnableRequest) (EnableResult, error) {
	cur, err := s.Store.TriggerByName(ctx, r.ProjectID, r.Name)
	if err != nil {
		return EnableResult{}, err
	}
	if cur.Spec.Enabled == r.Enabled {
		return EnableResult{Enabled: cur.Spec.Enabled, Revision: cur.Revision, CreatedAtMs: cur.CreatedAtMs}, nil
	}
	// A stored zone the zone database here lacks is refused saying so,
	// not as a zone to write otherwise, which is how the new revision's
	// own validation would take it.
	if err := schedule.CheckStoredCron(cur.TriggerID, cur.Spec.Cron); err != nil {
		return EnableResult{}, err
	}
	spec := cur.Spec
	spec.Enabled = r.Enabled
	rev, err := trigger.NewRevision(cur.ProjectID, cur.TriggerID, cur.TaskID, cur.TaskRevision, cur.TaskContentDigest, cur.Revision, ids.New(), spec, s.NowMs())
	if err != nil {
		return EnableResult{}, err
	}
	action := "disable"
	if r.Enabled {
		action = "enable"
	}
	res, err := s.Store.TriggerPublish(ctx, TriggerPublishParams{Revision: rev, Audit: &Audit{Action: action, Actor: r.Actor}})
	if qlerror.ReasonOf(err) == RefusalProjectArchived {
		// The store's refusal speaks of publishing, which is how an
		// enable is made but not what its user asked for.
		return EnableResult{}, qlerror.New(qlerror.FailedPrecondition, "cannot %s trigger %q: its project is archived, and an archived project's triggers stay as they are (and none runs) until it is active again; "+
			"to make it active, set status: active in the project's definitions file and `ql apply -f FILE` it", action, cur.Spec.Name).Because(RefusalProjectArchived)
	}
	if err != nil {
		return EnableResult{}, err
	}
	return EnableResult{Changed: true, Enabled: r.Enabled, Revision: res.Revision, CreatedAtMs: res.CreatedAtMs}, nil
}
