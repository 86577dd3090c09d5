package deps

import (
	"context"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// The states of a declared package, by the newest Run that installed it.
const (
	StateInstalled  = "installed"
	StateFailed     = "failed"
	StateInstalling = "installing"
	// StateDeclared: never installed.
	StateDeclared = "declared"
	// StateGone: its Run was deleted by retention.
	StateGone = "gone"
)

// Listed is a declared package with its state, as the page, the API
// (GET /api/v1/dependencies) and `ql deps list` show it.
type Listed struct {
	Kind     Kind      `json:"kind"`
	Name     string    `json:"name"`
	Spec     string    `json:"spec"`
	State    string    `json:"state"`
	RunID    string    `json:"runId,omitempty"`
	RunState run.State `json:"runState,omitempty"`
	AtMs     int64     `json:"atMs,omitempty"`
	Actor    string    `json:"actor,omitempty"`
}

// Manager lists, adds and removes declared packages and sets mirrors: the Service on the
// server, the server's API from `ql deps` given --api-url.
type Manager interface {
	DependencyListed(ctx context.Context) ([]Listed, error)
	// DependencyAdd declares the packages of kind k that specs list and
	// installs them in one Run, whose id it returns.
	DependencyAdd(ctx context.Context, actor string, k Kind, specs string) (string, error)
	// DependencyInstall installs again the declared package name of
	// kind k, or every one of that kind when name is "", in one Run.
	DependencyInstall(ctx context.Context, actor string, k Kind, name string) (string, error)
	// DependencyRemove uninstalls the declared package name of kind k in
	// a Run and forgets it.
	DependencyRemove(ctx context.Context, actor string, k Kind, name string) (string, error)
	// DependencyMirrors lists the mirror of every kind that takes one.
	DependencyMirrors(ctx context.Context) ([]Mirror, error)
	// DependencyMirrorSet checks m and keeps it as its kind's mirror.
	DependencyMirrorSet(ctx context.Context, actor string, m Mirror) (Mirror, error)
}

var _ Manager = (*Service)(nil)

// DependencyListed lists the declared packages with the state of the
// Run that installed each.
func (s *Service) DependencyListed(ctx context.Context) ([]Listed, error) {
	list, err := s.Store.DependencyList(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Listed, 0, len(list))
	for _, d := range list {
		l := Listed{Kind: d.Kind, Name: d.Name, Spec: d.Spec, State: StateDeclared, RunID: d.RunID, AtMs: d.AtMs, Actor: d.Actor}
		if d.RunID != "" {
			det, err := s.Runs.RunGet(ctx, d.RunID)
			switch {
			case qlerror.CodeOf(err) == qlerror.NotFound:
				l.State = StateGone
			case err != nil:
				return nil, err
			default:
				l.RunState, l.State = det.Run.State, stateOf(det.Run.State)
			}
		} else {
			l.AtMs, l.Actor = 0, ""
		}
		out = append(out, l)
	}
	return out, nil
}

// stateOf is a package's state by its Run's.
func stateOf(s run.State) string {
	switch {
	case !s.Finished():
		return StateInstalling
	case s == run.Succeeded:
		return StateInstalled
	}
	return StateFailed
}

// DependencyAdd checks every package specs lists and that this server
// has their installer before declaring any, then installs them.
func (s *Service) DependencyAdd(ctx context.Context, actor string, k Kind, specs string) (string, error) {
	pkgs, err := ParseList(k, specs)
	if err != nil {
		return "", err
	}
	if _, err := s.Host.Ready(k); err != nil {
		return "", err
	}
	if err := s.Store.DependencyDeclare(ctx, actor, pkgs); err != nil {
		return "", err
	}
	return s.Do(ctx, actor, k, Install, pkgs)
}

// DependencyInstall installs again one declared package, or all of k.
func (s *Service) DependencyInstall(ctx context.Context, actor string, k Kind, name string) (string, error) {
	pkgs, err := s.declaredNamed(ctx, k, name)
	if err != nil {
		return "", err
	}
	return s.Do(ctx, actor, k, Install, pkgs)
}

// DependencyRemove uninstalls one declared package and forgets it.
func (s *Service) DependencyRemove(ctx context.Context, actor string, k Kind, name string) (string, error) {
	if strings.TrimSpace(name) == "" {
		return "", NotDeclared(Package{Kind: k, Name: name})
	}
	pkgs, err := s.declaredNamed(ctx, k, name)
	if err != nil {
		return "", err
	}
	return s.Do(ctx, actor, k, Remove, pkgs)
}

// declaredNamed is the declared package name of kind k, or every one of
// k when name is "".
func (s *Service) declaredNamed(ctx context.Context, k Kind, name string) ([]Package, error) {
	if _, err := ParseKind(string(k)); err != nil {
		return nil, err
	}
	list, err := s.Store.DependencyList(ctx)
	if err != nil {
		return nil, err
	}
	var pkgs []Package
	for _, x := range list {
		if x.Kind == k && (name == "" || x.Name == name) {
			pkgs = append(pkgs, x.Package)
		}
	}
	switch {
	case len(pkgs) > 0:
		return pkgs, nil
	case name == "":
		return nil, NoneDeclared(k)
	}
	return nil, NotDeclared(Package{Kind: k, Name: name})
}
