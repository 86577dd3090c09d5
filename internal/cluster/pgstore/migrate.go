package pgstore

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// SchemaName is the one PostgreSQL schema QingLong owns.
const SchemaName = "qinglong"

// capabilityComponent names the contract the capability row versions.
const capabilityComponent = "control-core"

// migrateLockKey serialises concurrent migrators (pg_advisory_lock is
// database-scoped; the value is "qlmigrat" in ASCII).
const migrateLockKey int64 = 0x716c6d6967726174

//go:embed migrations/pg-*.sql
var migrationFS embed.FS

var migrationName = regexp.MustCompile(`^pg-([0-9]{4})-([a-z0-9-]+)\.sql$`)

// Migration is one entry of the embedded stream.
type Migration struct {
	Seq      int
	ID       string // pg-NNNN-name
	Name     string // the capability name this migration advances to
	Checksum string // sha256:<hex> of the file's bytes
	SQL      string
}

// Applied reports one migration Migrate applied.
type Applied struct {
	ID       string
	Checksum string
}

// Stream returns the binary's migrations in order. The stream is checked
// when loaded: numbering starts at 1 without gaps.
func Stream() []Migration {
	return stream
}

var stream = mustLoadStream()

func mustLoadStream() []Migration {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		panic(err)
	}
	var out []Migration
	for _, e := range entries {
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			panic("pgstore: migration file " + e.Name() + " is not named pg-NNNN-name.sql")
		}
		body, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			panic(err)
		}
		seq, _ := strconv.Atoi(m[1])
		sum := sha256.Sum256(body)
		out = append(out, Migration{
			Seq: seq, ID: "pg-" + m[1] + "-" + m[2], Name: m[2],
			Checksum: "sha256:" + hex.EncodeToString(sum[:]), SQL: string(body),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	for i, m := range out {
		if m.Seq != i+1 {
			panic(fmt.Sprintf("pgstore: migration stream has a gap before %s", m.ID))
		}
	}
	return out
}

// historyRow is one applied migration as the database records it.
type historyRow struct {
	Seq      int
	ID       string
	Checksum string
}

// Migrate applies the pending migrations of the embedded stream, each in its
// own transaction under an advisory lock held for the whole run, and reports
// what it applied (nothing when up to date). It refuses, naming the
// migration, a database whose history differs from the stream or is ahead
// of it. Connect as the migration role, or as a superuser for the first
// install (then run EnsureRoles, which hands ownership to the migration
// role).
//
// A role that may not (the runtime or admin role's URL given by mistake)
// is told which role to connect as, by name.
func Migrate(ctx context.Context, url string, progress func(string)) ([]Applied, error) {
	applied, err := migrate(ctx, url, progress)
	if sqlState(err) == stateInsufficientPriv {
		err = qlerror.Wrap(qlerror.FailedPrecondition, err, "this role may not change the schema: `ql db migrate` connects as the migration role, %s "+
			"(or --role-prefix's migration role), which `ql db roles` creates, or as a superuser for the first install; give its URL in $QL_DATABASE_MIGRATION_URL",
			RoleNames("").Name(RoleMigration))
	}
	return applied, err
}

func migrate(ctx context.Context, url string, progress func(string)) ([]Applied, error) {
	conn, err := connect(ctx, url)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, sqlMigrateLock, migrateLockKey); err != nil {
		return nil, mapErr(err, "taking the migration lock")
	}
	// Session-level lock: released explicitly, or by the server when the
	// connection ends.
	defer conn.Exec(context.WithoutCancel(ctx), sqlMigrateUnlock, migrateLockKey) //nolint:errcheck // the lock dies with the session anyway
	if err := ensureSchema(ctx, conn); err != nil {
		return nil, err
	}
	history, err := readHistory(ctx, conn)
	if err != nil {
		return nil, err
	}
	if err := compareHistory(history, stream, false); err != nil {
		return nil, err
	}
	var applied []Applied
	for _, m := range stream[len(history):] {
		if progress != nil {
			progress(fmt.Sprintf("applying %s (%s)", m.ID, m.Checksum))
		}
		if err := applyMigration(ctx, conn, m); err != nil {
			return applied, err
		}
		applied = append(applied, Applied{ID: m.ID, Checksum: m.Checksum})
	}
	return applied, nil
}

// ensureSchema creates the schema only when it is absent: CREATE SCHEMA
// needs CREATE on the database even with IF NOT EXISTS, which the migration
// role (owner of an existing schema) deliberately lacks.
func ensureSchema(ctx context.Context, conn *pgx.Conn) error {
	var exists bool
	if err := conn.QueryRow(ctx, sqlSchemaExists, SchemaName).Scan(&exists); err != nil {
		return mapErr(err, "looking for schema "+SchemaName)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{SchemaName}.Sanitize()); err != nil {
		return mapErr(err, "creating schema "+SchemaName+" (first install needs a superuser or a role with CREATE on the database)")
	}
	return nil
}

func readHistory(ctx context.Context, q querier) ([]historyRow, error) {
	var present bool
	if err := q.QueryRow(ctx, sqlHistoryPresent).Scan(&present); err != nil {
		return nil, mapErr(err, "looking for the migration history")
	}
	if !present {
		return nil, nil
	}
	rows, err := q.Query(ctx, sqlHistoryRead)
	if err != nil {
		return nil, mapErr(err, "reading the migration history")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (historyRow, error) {
		var h historyRow
		err := r.Scan(&h.Seq, &h.ID, &h.Checksum)
		return h, err
	})
	if err != nil {
		return nil, mapErr(err, "reading the migration history")
	}
	return out, nil
}

// compareHistory checks that history is a prefix of the stream (exact ids
// and checksums, no gaps); with complete it must be the whole stream.
func compareHistory(history []historyRow, want []Migration, complete bool) error {
	for i, h := range history {
		if i >= len(want) {
			return &ReadinessError{Code: CodeHistoryAhead, Detail: fmt.Sprintf(
				"the database has migration %s, which this binary does not know (it knows up to %s); to go back to this binary instead, restore the backup taken before that migration (docs/operations.md, \"Rolling back\")",
				h.ID, want[len(want)-1].ID)}
		}
		m := want[i]
		if h.Seq != m.Seq || h.ID != m.ID {
			return &ReadinessError{Code: CodeHistoryMismatch, Detail: fmt.Sprintf(
				"migration #%d is %s in the database but %s in this binary; the history has a gap or another stream was applied", i+1, h.ID, m.ID)}
		}
		if h.Checksum != m.Checksum {
			return &ReadinessError{Code: CodeHistoryMismatch, Detail: fmt.Sprintf(
				"migration %s was applied with checksum %s but this binary's is %s; applied migrations must never be edited", m.ID, h.Checksum, m.Checksum)}
		}
	}
	if complete && len(history) < len(want) {
		return &ReadinessError{Code: CodeHistoryBehind, Detail: fmt.Sprintf(
			"the database is at %s, this binary needs up to %s", lastID(history), want[len(want)-1].ID)}
	}
	return nil
}

func lastID(h []historyRow) string {
	if len(h) == 0 {
		return "no migration"
	}
	return h[len(h)-1].ID
}

// applyMigration runs one migration in one transaction that asserts the
// previous capability row, runs the file, records it and advances the row.
func applyMigration(ctx context.Context, conn *pgx.Conn, m Migration) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return mapErr(err, "starting migration "+m.ID)
	}
	defer rollbackTx(ctx, tx)
	if err := assertCapability(ctx, tx, m.Seq-1); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, m.SQL); err != nil {
		return mapErr(err, "applying migration "+m.ID)
	}
	if _, err := tx.Exec(ctx, sqlHistoryInsert, m.Seq, m.ID, m.Checksum); err != nil {
		return mapErr(err, "recording migration "+m.ID)
	}
	if _, err := tx.Exec(ctx, sqlCapabilityAdvance, capabilityComponent, m.Seq, m.Name); err != nil {
		return mapErr(err, "advancing the capability row for "+m.ID)
	}
	if err := tx.Commit(ctx); err != nil {
		return mapErr(err, "committing migration "+m.ID)
	}
	return nil
}

// assertCapability checks that the capability row names version prev (no
// row at all before the first migration).
func assertCapability(ctx context.Context, tx pgx.Tx, prev int) error {
	var present bool
	if err := tx.QueryRow(ctx, sqlCapabilityPresent).Scan(&present); err != nil {
		return mapErr(err, "looking for the capability row")
	}
	if !present {
		if prev == 0 {
			return nil
		}
		return qlerror.New(qlerror.FailedPrecondition, "capability table missing although %s recorded; restore the database", plural.Count(prev, "migration is", "migrations are"))
	}
	var version int
	err := tx.QueryRow(ctx, sqlCapabilityRead, capabilityComponent).Scan(&version, new(string))
	switch {
	case err == pgx.ErrNoRows && prev == 0:
		return nil
	case err == pgx.ErrNoRows:
		return qlerror.New(qlerror.FailedPrecondition, "capability row missing although %s recorded; restore the database", plural.Count(prev, "migration is", "migrations are"))
	case err != nil:
		return mapErr(err, "reading the capability row")
	case version != prev:
		return qlerror.New(qlerror.FailedPrecondition, "capability row says version %d but the history says %d; the database was changed outside `ql db migrate`", version, prev)
	}
	return nil
}
