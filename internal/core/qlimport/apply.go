package qlimport

import (
	"context"
	"fmt"
	"slices"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Stores are a single node's stores a plan is applied to: the command
// line's --apply and the console's Import button give the same.
type Stores struct {
	// Secrets is the node's secrets file, Record the audit trail that
	// records who set each of its secrets (nil records nothing).
	Secrets process.Secrets
	Record  audit.Appender
	// Catalog publishes the definitions, recording who did.
	Catalog catalog.Service
	// Dependencies declares packages; nil where none are kept.
	Dependencies Declarer
}

// Declarer declares packages without installing them.
type Declarer interface {
	DependencyImport(ctx context.Context, actor string, pkgs []deps.Package) ([]deps.Package, error)
}

// Applied is what an apply changed.
type Applied struct {
	// Secrets are the secrets set, Replaced those that held another
	// value; SecretsUnchanged counts those that held the plan's value.
	Secrets          []SecretSet
	SecretsUnchanged int
	// Results are the definitions' objects as the publish left them.
	Results []apply.Result
	// Declared are the packages declared; DeclaredAlready counts those
	// declared before.
	Declared        []deps.Package
	DeclaredAlready int
}

// SecretSet is a secret an apply set, by name.
type SecretSet struct {
	Name     string
	Replaced bool
}

// Changed reports whether the apply changed anything.
func (a Applied) Changed() bool {
	if len(a.Secrets) > 0 || len(a.Declared) > 0 {
		return true
	}
	return slices.ContainsFunc(a.Results, func(r apply.Result) bool { return r.Change != catalog.Unchanged })
}

// Apply stores plan, file its definitions file, as actor: the secrets
// first (a trigger firing as soon as it is published finds the secrets
// its project's env names), then the definitions, then the
// dependencies, each only where it changes something, so that applying
// the same plan again changes nothing. What was done before an error is
// returned with it.
func Apply(ctx context.Context, st Stores, plan Plan, file []byte, actor string) (Applied, error) {
	var out Applied
	doc, err := apply.Parse("qinglong import", file)
	if err != nil {
		return out, err
	}
	if len(plan.Dependencies) > 0 && st.Dependencies == nil {
		return out, qlerror.New(qlerror.FailedPrecondition, "this database keeps no dependencies: install the packages on the hosts that run the commands")
	}
	if err := out.setSecrets(ctx, st, plan.Secrets, actor); err != nil {
		return out, err
	}
	if out.Results, err = apply.Publish(ctx, st.Catalog, doc, ids.New, apply.Options{Actor: actor, Summarized: true}); err != nil {
		return out, err
	}
	if len(plan.Dependencies) == 0 {
		return out, nil
	}
	if out.Declared, err = st.Dependencies.DependencyImport(ctx, actor, plan.Dependencies); err != nil {
		return out, err
	}
	out.DeclaredAlready = len(plan.Dependencies) - len(out.Declared)
	return out, nil
}

// setSecrets sets each secret whose value differs from the one stored,
// recording who set it once it is set.
func (a *Applied) setSecrets(ctx context.Context, st Stores, secrets []Secret, actor string) error {
	names, err := st.Secrets.Names()
	if err != nil {
		return err
	}
	for _, s := range secrets {
		if slices.Contains(names, s.Name) {
			if have, err := st.Secrets.Resolve([]string{s.Name}); err == nil && have[s.Name] == s.Value {
				a.SecretsUnchanged++
				continue
			}
		}
		replaced, err := st.Secrets.Set(s.Name, s.Value)
		if err != nil {
			return err
		}
		a.Secrets = append(a.Secrets, SecretSet{Name: s.Name, Replaced: replaced})
		if st.Record != nil {
			if err := audit.RecordDone(ctx, st.Record, audit.Secret(audit.SecretSet, actor, s.Name, replaced), fmt.Sprintf("secret %s was set in %s", s.Name, st.Secrets.Path)); err != nil {
				return err
			}
		}
	}
	return nil
}
