package subscription

import (
	"context"
	"errors"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RescopeActor is who the audit trail says published the pull tasks an
// upgrade scoped (Rescope).
const RescopeActor = "upgrade:credential-helper-scope"

// Rescoped is a subscription whose pull task Rescope published again.
type Rescoped struct{ Project, Name string }

// Rescope publishes again, by actor, the pull task of every subscription
// (of every project) whose script an earlier release wrote with the
// credential helper git asks for every URL, with the helper scoped to the
// subscription's scheme, host and port (crontab.Rescoped): one publish per
// task, its script changed there alone, checked against the revision it
// was read at, by actor (in the store's publish audit when audited, as a
// single node's console publishes: a cluster's store keeps none, as for
// its `ql apply`); its triggers follow it. A task
// written so is a script written once, which nothing but a publish
// changes, so an upgrade does this rather than leave the token to be sent
// where a redirect leads until the subscription's next edit. It returns
// those it published and the refusals of those it could not (a change
// published meanwhile, an archived project's), the others published all
// the same; a task already scoped, or edited so that it holds no such
// helper, is left alone, so a second call publishes nothing.
func Rescope(ctx context.Context, r catalog.DefinitionsReader, svc catalog.Service, actor string, audited bool) ([]Rescoped, error) {
	var done []Rescoped
	var errs []error
	err := eachProject(ctx, r, projectsPage, func(d catalog.Definitions) {
		for _, t := range d.Tasks {
			u, ok := t.Spec.Labels[LabelURL]
			if !ok {
				continue
			}
			script, ok := crontab.Rescoped(t.Spec.Command.Script, u)
			if !ok {
				continue
			}
			text, expect, err := apply.ScriptEditFile(ctx, r, d.Project.Name, t.Spec.Name, script)
			if err == nil {
				err = publishAs(ctx, svc, text, expect, apply.Options{Actor: actor, Summarized: audited})
			}
			if err != nil {
				errs = append(errs, qlerror.Wrap(qlerror.CodeOf(err), err, "scope the credential helper of subscription %s (project %s)", t.Spec.Name, d.Project.Name))
				continue
			}
			done = append(done, Rescoped{Project: d.Project.Name, Name: t.Spec.Name})
		}
	})
	if err != nil {
		return done, err
	}
	return done, errors.Join(errs...)
}
