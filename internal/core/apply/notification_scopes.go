package apply

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// WithRuleScopes fills in each listed notification's Scope: the rule of
// its project whose key it carries, as the project's settings have it
// now. An outbox row keeps only the rule's key, so a rule changed or
// removed since (another key) and a project gone leave Scope nil. Each
// project's settings are read once.
func WithRuleScopes(ctx context.Context, r catalog.DefinitionsReader, ms []notify.Message) error {
	scopes := map[string]map[string]*notify.RuleScope{}
	for i := range ms {
		m := &ms[i]
		byKey, read := scopes[m.ProjectID]
		if !read {
			var err error
			if byKey, err = ruleScopes(ctx, r, m.ProjectID); err != nil {
				return err
			}
			scopes[m.ProjectID] = byKey
		}
		m.Scope = byKey[m.RuleKey]
	}
	return nil
}

// ruleScopes are the scopes of the rules of the project whose id is id,
// by rule key; none when no project has the id.
func ruleScopes(ctx context.Context, r catalog.DefinitionsReader, id string) (map[string]*notify.RuleScope, error) {
	name, err := r.ProjectNameOf(ctx, id)
	if err != nil || name == "" {
		return nil, err
	}
	// The project alone: no task or trigger is read.
	d, err := r.ProjectDefinitions(ctx, name, 0)
	if qlerror.ReasonOf(err) == catalog.RefusalProjectMissing {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	spec, err := notify.Decode(d.Project.Notifications)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*notify.RuleScope, len(spec.Rules))
	for _, rule := range spec.Rules {
		out[rule.Key()] = &notify.RuleScope{Project: d.Project.Name, Tasks: rule.Tasks, Triggers: rule.Triggers}
	}
	return out, nil
}
