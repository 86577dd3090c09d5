package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

var errNoDependencies = qlerror.New(qlerror.FailedPrecondition, "this server installs no dependencies: its commands run on the cluster's workers, "+
	"so install them on each worker's host (a task pinned to the workers by placement labels, or the workers' image)").Because(RefusalNotOverTheAPI)

// depsBody is the body of POST /api/v1/dependencies and of its install
// and remove: a kind and the packages to add, or the name to install
// again (every one of the kind when none) or to remove.
type depsBody struct {
	Kind     string   `json:"kind" doc:"Required: the packages' installer: node (npm), python (pip) or linux (the host's apk or apt) (dependency_kind_unknown)."`
	Packages []string `json:"packages" doc:"For an add (POST /api/v1/dependencies): the packages to declare and install, from 1 to 100 (dependency_none, dependency_too_many), each as its installer writes it (axios or name@1.2.3, requests==2.31.0, curl) and at most 214 characters (dependency_name_invalid); a name given twice keeps the last. Install and remove do not read it."`
	Name     string   `json:"name" doc:"For install and remove: the name of a declared package of the kind, without its version (dependency_missing for another); an install without it installs every declared package of the kind again, a remove needs it. An add does not read it."`
}

// depsDone is what a change answers: the Run that does it.
type depsDone struct {
	RunID string `json:"runId"`
}

// depsList lists the declared packages with their states.
func (a *api) depsList(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	if a.Dependencies == nil {
		return nil, errNoDependencies
	}
	list, err := a.Dependencies.DependencyListed(ctx)
	return struct {
		Dependencies []deps.Listed `json:"dependencies"`
	}{list}, err
}

// depsChange answers a change of the declared packages with its Run; one
// sent with an Idempotency-Key is made once per key (depsOnce).
func (a *api) depsChange(do func(ctx context.Context, actor string, k deps.Kind, b depsBody) (string, error)) func(context.Context, *http.Request) (any, error) {
	return func(ctx context.Context, r *http.Request) (any, error) {
		if _, err := params(r.URL.Query()); err != nil {
			return nil, err
		}
		if a.Dependencies == nil {
			return nil, errNoDependencies
		}
		var b depsBody
		if err := a.decodeBody(r, &b); err != nil {
			return nil, err
		}
		k, err := deps.ParseKind(b.Kind)
		if err != nil {
			return nil, err
		}
		key, err := idempotencyKey(r)
		if err != nil {
			return nil, err
		}
		actor := principalOf(ctx).actor()
		change := func() (string, error) { return do(ctx, actor, k, b) }
		var id string
		if key == "" {
			id, err = change()
		} else {
			id, err = a.depsOnce(ctx, principalOf(ctx).keyOwner(), key, r.URL.Path, b, change)
		}
		if err != nil {
			return nil, err
		}
		return depsDone{RunID: id}, nil
	}
}

func (a *api) depsAdd(ctx context.Context, actor string, k deps.Kind, b depsBody) (string, error) {
	return a.Dependencies.DependencyAdd(ctx, actor, k, strings.Join(b.Packages, " "))
}

func (a *api) depsInstall(ctx context.Context, actor string, k deps.Kind, b depsBody) (string, error) {
	return a.Dependencies.DependencyInstall(ctx, actor, k, b.Name)
}

func (a *api) depsRemove(ctx context.Context, actor string, k deps.Kind, b depsBody) (string, error) {
	return a.Dependencies.DependencyRemove(ctx, actor, k, b.Name)
}

// depsMirrors lists the mirror of every kind that takes one.
func (a *api) depsMirrors(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	if a.Dependencies == nil {
		return nil, errNoDependencies
	}
	list, err := a.Dependencies.DependencyMirrors(ctx)
	return struct {
		Mirrors []deps.Mirror `json:"mirrors"`
	}{list}, err
}

// mirrorBody is the body of POST /api/v1/dependencies/mirrors: a kind's
// whole mirror, an empty field the installer's default.
type mirrorBody struct {
	Kind     string `json:"kind" doc:"Required: the installer the mirror is for: node or python (dependency_mirror_kind); linux packages take none here, apk and apt reading theirs from the host's own files."`
	Registry string `json:"registry" doc:"npm's registry or pip's index, an http:// or https:// URL without user or password, at most 512 characters (dependency_mirror_url); pip also trusts its host. Empty or left out for the installer's default."`
	Proxy    string `json:"proxy" doc:"The HTTP(S) proxy the installer reaches the registry through, an http:// or https:// URL without user or password, at most 512 characters (dependency_mirror_url). Empty or left out for the installer's default."`
}

// depsMirrorSet keeps a kind's mirror and answers it as kept.
func (a *api) depsMirrorSet(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	if a.Dependencies == nil {
		return nil, errNoDependencies
	}
	var b mirrorBody
	if err := a.decodeBody(r, &b); err != nil {
		return nil, err
	}
	return a.Dependencies.DependencyMirrorSet(ctx, principalOf(ctx).actor(), deps.Mirror{Kind: deps.Kind(b.Kind), Registry: b.Registry, Proxy: b.Proxy})
}
