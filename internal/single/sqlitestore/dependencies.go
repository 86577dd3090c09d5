package sqlitestore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/deps"
)

var _ deps.Store = (*Store)(nil)

// DependencyList lists the declared packages, by kind and name.
func (s *Store) DependencyList(ctx context.Context) ([]deps.Declared, error) {
	var out []deps.Declared
	err := s.read(ctx, "list dependencies", func(tx *txn) error {
		rows, err := tx.QueryContext(ctx, qDependencyList)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var d deps.Declared
			var kind string
			if err := rows.Scan(&kind, &d.Name, &d.Spec, &d.RunID, &d.AtMs, &d.Actor, &d.AddedAtMs); err != nil {
				return err
			}
			d.Kind = deps.Kind(kind)
			out = append(out, d)
		}
		return rows.Err()
	})
	return out, err
}

// DependencyDeclare declares pkgs with a dependency.added record each,
// in one transaction.
func (s *Store) DependencyDeclare(ctx context.Context, actor string, pkgs []deps.Package) error {
	now := s.nowMs()
	return s.write(ctx, "declare dependencies", durable, func(tx *txn) error {
		for _, p := range pkgs {
			if _, err := tx.ExecContext(ctx, qDependencyDeclare, string(p.Kind), p.Name, p.Spec, now, actor); err != nil {
				return err
			}
			if err := appendAudit(ctx, tx, now, audit.Dependency(audit.DependencyAdded, actor, string(p.Kind), p.Name, p.Spec)); err != nil {
				return err
			}
		}
		return nil
	})
}

// DependencyInstalling names runID as the Run that installs pkgs, with a
// dependency.installed record each, in one transaction.
func (s *Store) DependencyInstalling(ctx context.Context, actor, runID string, pkgs []deps.Package) error {
	now := s.nowMs()
	return s.write(ctx, "record a dependencies install", durable, func(tx *txn) error {
		for _, p := range pkgs {
			if _, err := tx.ExecContext(ctx, qDependencyInstalling, string(p.Kind), p.Name, p.Spec, runID, now, actor); err != nil {
				return err
			}
			if err := appendAudit(ctx, tx, now, audit.Dependency(audit.DependencyInstalled, actor, string(p.Kind), p.Name, p.Spec+", run "+runID)); err != nil {
				return err
			}
		}
		return nil
	})
}

// DependencyRemoved forgets pkgs, with a dependency.removed record each,
// in one transaction: all or, when one was not declared, none.
func (s *Store) DependencyRemoved(ctx context.Context, actor, runID string, pkgs []deps.Package) error {
	now := s.nowMs()
	return s.write(ctx, "remove dependencies", durable, func(tx *txn) error {
		for _, p := range pkgs {
			res, err := tx.ExecContext(ctx, qDependencyDelete, string(p.Kind), p.Name)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				return deps.NotDeclared(p)
			}
			if err := appendAudit(ctx, tx, now, audit.Dependency(audit.DependencyRemoved, actor, string(p.Kind), p.Name, "uninstall run "+runID)); err != nil {
				return err
			}
		}
		return nil
	})
}

// DependencyMirrors lists the mirrors set, by kind.
func (s *Store) DependencyMirrors(ctx context.Context) ([]deps.Mirror, error) {
	var out []deps.Mirror
	err := s.read(ctx, "list dependency mirrors", func(tx *txn) error {
		rows, err := tx.QueryContext(ctx, qDependencyMirrors)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m deps.Mirror
			var kind string
			if err := rows.Scan(&kind, &m.Registry, &m.Proxy, &m.AtMs, &m.Actor); err != nil {
				return err
			}
			m.Kind = deps.Kind(kind)
			out = append(out, m)
		}
		return rows.Err()
	})
	return out, err
}

// DependencyMirrorSet keeps m as its kind's mirror with a
// dependency.mirror_set record, in one transaction.
func (s *Store) DependencyMirrorSet(ctx context.Context, actor string, m deps.Mirror) error {
	now := s.nowMs()
	return s.write(ctx, "set a dependency mirror", durable, func(tx *txn) error {
		if _, err := tx.ExecContext(ctx, qDependencyMirrorSet, string(m.Kind), m.Registry, m.Proxy, now, actor); err != nil {
			return err
		}
		return appendAudit(ctx, tx, now, audit.Dependency(audit.DependencyMirrorSet, actor, string(m.Kind), "mirror", mirrorNote(m)))
	})
}

// mirrorNote is what a dependency.mirror_set record says: the registry
// and proxy set, or that the installer's default is back.
func mirrorNote(m deps.Mirror) string {
	or := func(v string) string {
		if v == "" {
			return "the installer's default"
		}
		return v
	}
	return "registry " + or(m.Registry) + ", proxy " + or(m.Proxy)
}
