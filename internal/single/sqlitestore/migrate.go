package sqlitestore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// CapabilityName names the schema contract the capability row asserts.
const CapabilityName = "local-core"

// Migration is one step of the embedded stream.
type Migration struct {
	// ID is "sqlite-NNNN-name", from the file name NNNN_name.sql.
	ID string
	// Checksum is "sha256:<hex>" over the file's statements.
	Checksum string
	sql      string
}

// Stream returns the code's migration stream in order. Applied migrations
// are never edited: readiness compares ids and checksums exactly.
func Stream() []Migration {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		panic(fmt.Sprintf("sqlitestore: migrations: %v", err))
	}
	sort.Strings(names)
	out := make([]Migration, 0, len(names))
	for _, name := range names {
		b, err := migrationFS.ReadFile(name)
		if err != nil {
			panic(fmt.Sprintf("sqlitestore: migration %s: %v", name, err))
		}
		sum := sha256.Sum256(b)
		base := strings.TrimSuffix(path.Base(name), ".sql")
		out = append(out, Migration{
			ID:       "sqlite-" + strings.ReplaceAll(base, "_", "-"),
			Checksum: "sha256:" + hex.EncodeToString(sum[:]),
			sql:      string(b),
		})
	}
	return out
}

// Migrate applies every migration of the stream the file has not seen yet,
// all in one BEGIN IMMEDIATE transaction that re-reads the history, and
// for each asserts the previous capability row and advances it: all or
// none of them. Two processes migrating at once serialise on the write
// lock; the second finds the work done. It returns the ids it applied.
func (s *Store) Migrate(ctx context.Context) ([]string, error) {
	return s.MigrateSaying(ctx, nil)
}

// MigrateSaying is Migrate, calling say (when not nil) before each step of
// a pending migration that reads every Run or attempt (LongStep), on a
// file of at least sayLongStepFrom Runs.
func (s *Store) MigrateSaying(ctx context.Context, say func(LongStep)) ([]string, error) {
	applied, err := s.migrateSaying(ctx, Stream(), say, sayLongStepFrom)
	if err != nil {
		return applied, err
	}
	return applied, s.ensureIncrementalVacuum(ctx)
}

// Pending returns the ids of the stream's migrations the file has not
// applied yet, in order, without taking the write lock; it fails as
// Migrate does when the file's history is not a prefix of the stream (a
// newer or another build migrated it).
func (s *Store) Pending(ctx context.Context) ([]string, error) {
	history, err := readHistory(ctx, s.reader)
	if err != nil {
		return nil, mapErr(err, "read the migration history")
	}
	stream := Stream()
	if err := historyIsPrefix(history, stream); err != nil {
		return nil, err
	}
	var out []string
	for _, m := range stream[len(history):] {
		out = append(out, m.ID)
	}
	return out, nil
}

// migrate applies what the file has not seen yet of stream, the code's
// stream or (in tests, to build the file an older build left) a prefix of
// it.
func (s *Store) migrate(ctx context.Context, stream []Migration) ([]string, error) {
	return s.migrateSaying(ctx, stream, nil, 0)
}

// migrateSaying is migrate, calling say before each step that reads every
// Run or attempt (LongStep) on a file of at least sayFrom Runs.
func (s *Store) migrateSaying(ctx context.Context, stream []Migration, say func(LongStep), sayFrom int64) ([]string, error) {
	// A file already at the end of the stream needs no write lock: every
	// CLI command that writes opens the store, and taking the lock once per
	// migration to find nothing to do made a command wait out, and then
	// fail naming the first migration, a lock another process held.
	// History only grows, so a complete one read without the lock stays
	// complete.
	if history, err := readHistory(ctx, s.reader); err == nil && len(history) == len(stream) && historyIsPrefix(history, stream) == nil {
		return nil, nil
	}
	// One transaction for every migration the file lacks: one that fails
	// (a full disk, most likely on a first start) leaves the file as it
	// was, never with part of the stream applied, which the next start
	// would take for an older build's database to upgrade rather than a
	// new one (no database_created warning).
	var applied []string
	err := s.write(ctx, "migrate "+s.cfg.Path, durable, func(tx *txn) error {
		applied = nil
		history, err := readHistory(ctx, tx)
		if err != nil {
			return err
		}
		if err := historyIsPrefix(history, stream); err != nil {
			return err
		}
		if len(history) == 0 {
			if err := requireEmpty(ctx, tx); err != nil {
				return err
			}
		}
		// Counted once, and only in a file that had a history: a new one
		// has no runs table before its first migration, and no Run.
		runs := int64(-1)
		for i := len(history); i < len(stream); i++ {
			m := stream[i]
			for _, step := range longSteps(m.sql) {
				if say == nil || len(history) == 0 {
					break
				}
				if runs < 0 {
					if err := tx.QueryRowContext(ctx, qRunsCount).Scan(&runs); err != nil {
						return err
					}
				}
				if runs >= sayFrom {
					step.Migration, step.Runs = m.ID, runs
					say(step)
				}
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("apply %s: %w", m.ID, err)
			}
			if _, err := tx.ExecContext(ctx, qMigrationRecord, m.ID, m.Checksum, s.nowMs()); err != nil {
				return err
			}
			res, err := tx.ExecContext(ctx, qCapabilityAdvance, CapabilityName, i+1)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n != 1 {
				return qlerror.New(qlerror.FailedPrecondition, "migrate %s: capability row is not %s v%d; the file was changed outside QingLong", m.ID, CapabilityName, i)
			}
			applied = append(applied, m.ID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return applied, nil
}

type historyRow struct{ id, checksum string }

func readHistory(ctx context.Context, q queryer) ([]historyRow, error) {
	var exists int
	if err := q.QueryRowContext(ctx, qMigrationsTableExists).Scan(&exists); err != nil {
		return nil, err
	}
	if exists == 0 {
		return nil, nil
	}
	rows, err := q.QueryContext(ctx, qMigrationsHistory)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []historyRow
	for rows.Next() {
		var h historyRow
		if err := rows.Scan(&h.id, &h.checksum); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// historyIsPrefix fails when the applied history is not a prefix of the
// code's stream: a newer binary migrated the file, or a migration changed.
func historyIsPrefix(history []historyRow, stream []Migration) error {
	if len(history) > len(stream) {
		return qlerror.New(qlerror.FailedPrecondition, "the database has %d migrations applied but this binary knows %d (last applied %s); run a QingLong build at least as new as the one that migrated it, or, to go back to this build, restore the backup taken before the upgrade (docs/operations.md, \"Rolling back\")", len(history), len(stream), history[len(history)-1].id)
	}
	for i, h := range history {
		if h.id != stream[i].ID || h.checksum != stream[i].Checksum {
			return qlerror.New(qlerror.FailedPrecondition, "migration %d is %s (%s) in the database but %s (%s) in this binary; the file belongs to an incompatible build", i+1, h.id, h.checksum, stream[i].ID, stream[i].Checksum)
		}
	}
	return nil
}

func requireEmpty(ctx context.Context, tx *txn) error {
	var n int
	if err := tx.QueryRowContext(ctx, qSchemaObjectCount).Scan(&n); err != nil {
		return err
	}
	if n != 0 {
		return qlerror.New(qlerror.FailedPrecondition, "the database file holds %s but no QingLong migration history; point QingLong at a new file", plural.Count(n, "object", "objects"))
	}
	return nil
}

// queryer is what both *sql.Tx and *sql.DB offer for reads.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}
