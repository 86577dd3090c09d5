package httpapi

import (
	"context"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/view"
)

// triggerEnable enables or disables a trigger: its current revision is
// published again with only `enabled` flipped, the token's name and the
// remote address audited in the publish's transaction. It takes the admin
// scope: unlike pause, it changes the trigger's definition (a new
// revision, what `ql apply` writes), and a later apply of a file saying
// otherwise changes it back. With If-Match, it publishes only over the
// revision of the trigger's project the client read, checked in the
// publishing transaction as an apply's is; asking for the state the
// trigger is in answers unchanged whatever the revision.
func (a *api) triggerEnable(enable bool) func(context.Context, *http.Request) (any, error) {
	return func(ctx context.Context, r *http.Request) (any, error) {
		if _, err := params(r.URL.Query()); err != nil {
			return nil, err
		}
		if a.Enabler == nil {
			return nil, qlerror.New(qlerror.PermissionDenied, "this server cannot enable or disable triggers over the API: its database role may not publish (a cluster replica runs as the runtime role); use `ql triggers enable|disable` with the admin role's URL (QL_DATABASE_URL=postgres://ql_admin@host/db) instead").Because(RefusalNotOverTheAPI)
		}
		var body struct{}
		if err := a.decodeBody(r, &body); err != nil {
			return nil, err
		}
		id := r.PathValue("id")
		d, err := a.Detail.TriggerDetail(ctx, id, 1)
		if err != nil {
			return nil, err
		}
		req := catalog.EnableRequest{ProjectID: d.ProjectID, Name: d.Name, Enabled: enable, Actor: principalOf(ctx).actor()}
		if tags := ifMatch(r); tags != nil {
			req.Precondition = apply.RevisionPrecondition(d.ProjectName, tags)
		}
		res, err := a.Enabler.TriggerSetEnabled(ctx, req)
		if err != nil {
			return nil, err
		}
		return view.NewTriggerEnable(id, res), nil
	}
}
