package deps

import "context"

// Declared is a package an admin declared, with the newest Run that
// installed it (RunID "" before the first), and when that Run was asked
// for and by whom.
type Declared struct {
	Package
	RunID     string
	AtMs      int64
	Actor     string
	AddedAtMs int64
}

// Store keeps the declared packages. Each change writes its audit record
// (dependency.added, .installed, .removed by name; .mirror_set by kind) in its own
// transaction.
type Store interface {
	// DependencyList lists every declared package, by kind and name.
	DependencyList(ctx context.Context) ([]Declared, error)
	// DependencyDeclare declares pkgs, replacing the specifier of a name
	// declared already.
	DependencyDeclare(ctx context.Context, actor string, pkgs []Package) error
	// DependencyInstalling records that the Run runID installs pkgs,
	// declaring those not declared.
	DependencyInstalling(ctx context.Context, actor, runID string, pkgs []Package) error
	// DependencyRemoved forgets pkgs, which the Run runID uninstalls, and
	// reports a refusal naming the first of them that was not declared.
	DependencyRemoved(ctx context.Context, actor, runID string, pkgs []Package) error
	// DependencyMirrors lists the mirrors set, by kind.
	DependencyMirrors(ctx context.Context) ([]Mirror, error)
	// DependencyMirrorSet keeps m, checked, as its kind's mirror, with a
	// dependency.mirror_set record.
	DependencyMirrorSet(ctx context.Context, actor string, m Mirror) error
}
