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
	// Precondition, when set, is run in the publishing transaction before
	// the new revision is written, after what serializes the store's
	// publishes: its error refuses the change, nothing written. An
	// enable over an expected project revision (If-Match) checks it so,
	// where no other publish can land between the check and the write.
	// A request for the state the trigger is in writes nothing and does
	// not run it: the answer is the same whatever moved the project.
	Precondition func(ctx context.Context, tx Tx) error
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
// harmless. It is one publishing transaction (Store.Publish), so that
// r.Precondition is checked where the change is written. A trigger whose stored cron this host cannot read (a zone its
// zone database lacks) is refused (schedule.CheckStoredCron).
func (s Service) TriggerSetEnabled(ctx context.Context, r EnableRequest) (EnableResult, error) {
	var out EnableResult
	action := "disable"
	if r.Enabled {
		action = "enable"
	}
	err := s.Store.Publish(ctx, func(tx Tx) error {
		out = EnableResult{}
		found, err := tx.TriggersByName(ctx, r.ProjectID, []string{r.Name})
		if err != nil {
			return err
		}
		cur, ok := found[r.Name]
		if !ok {
			return qlerror.New(qlerror.NotFound, "trigger %q does not exist in project %s", r.Name, r.ProjectID)
		}
		if cur.Spec.Enabled == r.Enabled {
			out = EnableResult{Enabled: cur.Spec.Enabled, Revision: cur.Revision, CreatedAtMs: cur.CreatedAtMs}
			return nil
		}
		// A stored zone the zone database here lacks is refused saying so,
		// not as a zone to write otherwise, which is how the new revision's
		// own validation would take it.
		if err := schedule.CheckStoredCron(cur.TriggerID, cur.Spec.Cron); err != nil {
			return err
		}
		if r.Precondition != nil {
			if err := r.Precondition(ctx, tx); err != nil {
				return err
			}
		}
		spec := cur.Spec
		spec.Enabled = r.Enabled
		rev, err := trigger.NewRevision(cur.ProjectID, cur.TriggerID, cur.TaskID, cur.TaskRevision, cur.TaskContentDigest, cur.Revision, ids.New(), spec, s.NowMs())
		if err != nil {
			return err
		}
		res, err := tx.TriggersPublish(ctx, []TriggerPublishParams{{Revision: rev, Audit: &Audit{Action: action, Actor: r.Actor}}})
		if err != nil {
			return err
		}
		out = EnableResult{Changed: true, Enabled: r.Enabled, Revision: res[0].Revision, CreatedAtMs: res[0].CreatedAtMs}
		return nil
	})
	if qlerror.ReasonOf(err) == RefusalProjectArchived {
		// The store's refusal speaks of publishing, which is how an
		// enable is made but not what its user asked for.
		return EnableResult{}, qlerror.New(qlerror.FailedPrecondition, "cannot %s trigger %q: its project is archived, and an archived project's triggers stay as they are (and none runs) until it is active again; "+
			"to make it active, set status: active in the project's definitions file and `ql apply -f FILE` it", action, r.Name).Because(RefusalProjectArchived)
	}
	if err != nil {
		return EnableResult{}, err
	}
	return out, nil
}
