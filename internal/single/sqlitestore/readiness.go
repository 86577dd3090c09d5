package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Readiness check names: stable codes a caller may match on.
const (
	CheckSQLiteVersion = "sqlite_version"
	CheckJournalMode   = "journal_mode"
	CheckForeignKeys   = "foreign_keys"
	CheckWritable      = "writable"
	CheckHistory       = "migration_history"
	CheckCapability    = "capability"
	CheckSchema        = "schema"
	CheckIntegrity     = "integrity"
)

// MinSQLiteVersion is the oldest library the schema and queries need
// (STRICT tables, NULLS FIRST, json_valid).
const MinSQLiteVersion = "3.38.0"

// NotReadyError says which readiness check failed and what to do.
type NotReadyError struct {
	Check  string
	Detail string
}

func (e *NotReadyError) Error() string {
	return "database not ready (" + e.Check + "): " + e.Detail
}

func notReady(check, format string, args ...any) error {
	return qlerror.Wrap(qlerror.FailedPrecondition, &NotReadyError{Check: check, Detail: fmt.Sprintf(format, args...)}, "sqlite readiness")
}

// Ready is the read-only, fail-closed readiness check mirroring the
// PostgreSQL one minus roles: a supported library, WAL and foreign keys on
// the writer, a writable file, a history equal to the code's stream (ids
// and checksums), the exact capability row and the exact schema. It writes
// nothing. Once the schema is known exact it prepares the store's
// statements.
func (s *Store) Ready(ctx context.Context) error {
	var version string
	if err := s.reader.QueryRowContext(ctx, qSQLiteVersion).Scan(&version); err != nil {
		return mapErr(err, "readiness")
	}
	if !versionAtLeast(version, MinSQLiteVersion) {
		return notReady(CheckSQLiteVersion, "SQLite %s is older than %s; rebuild with a current modernc.org/sqlite", version, MinSQLiteVersion)
	}
	var mode string
	if err := s.writer.QueryRowContext(ctx, qPragmaJournalMode).Scan(&mode); err != nil {
		return mapErr(err, "readiness")
	}
	if !strings.EqualFold(mode, "wal") {
		return notReady(CheckJournalMode, "journal mode is %q, not wal; another tool changed it — reopen the file with QingLong", mode)
	}
	var fk int
	if err := s.writer.QueryRowContext(ctx, qPragmaForeignKeys).Scan(&fk); err != nil {
		return mapErr(err, "readiness")
	}
	if fk != 1 {
		return notReady(CheckForeignKeys, "foreign keys are off on the writer connection")
	}
	if err := s.checkWritable(ctx); err != nil {
		return err
	}
	return s.schemaReady(ctx)
}

// noDatabaseHeld says what a file with no migration applied is — an
// empty file, never an older build's database — and what to do.
const noDatabaseHeld = "the file holds no QingLong database (it is empty: no migration applied); if it should hold your data " +
	"(a restore or a copy cut short, a full disk), restore it from a backup; a server started on it makes a new, empty database in it"

// schemaReady checks the history, the capability row and the schema, then
// prepares the store's statements.
func (s *Store) schemaReady(ctx context.Context) error {
	history, err := readHistory(ctx, s.reader)
	if err != nil {
		return mapErr(err, "readiness")
	}
	stream := Stream()
	if err := historyIsPrefix(history, stream); err != nil {
		return notReady(CheckHistory, "%v", err)
	}
	if len(history) == 0 {
		return notReady(CheckHistory, "%s", noDatabaseHeld)
	}
	if len(history) != len(stream) {
		return notReady(CheckHistory, "%d of %d migrations applied: the file is an older build's; this build's server migrates it as it starts (`ql serve`, once the older server has stopped; docs/operations.md, \"Upgrading\")", len(history), len(stream))
	}
	var capName string
	var capVersion int
	if err := s.reader.QueryRowContext(ctx, qCapabilityRead).Scan(&capName, &capVersion); err != nil {
		if err == sql.ErrNoRows {
			return notReady(CheckCapability, "capability row is missing")
		}
		return mapErr(err, "readiness")
	}
	if capName != CapabilityName || capVersion != len(stream) {
		return notReady(CheckCapability, "capability is %s v%d, expected %s v%d", capName, capVersion, CapabilityName, len(stream))
	}
	if err := s.checkSchema(ctx); err != nil {
		return err
	}
	return mapErr(s.prepareAll(ctx), "prepare statements")
}

// checkWritable takes and releases the write lock without writing: a
// read-only file or directory fails here, not at the first admission.
func (s *Store) checkWritable(ctx context.Context) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return notReady(CheckWritable, "cannot take the write lock: %v; check file permissions and that no other tool holds the file", err)
	}
	if err := tx.Rollback(); err != nil {
		return notReady(CheckWritable, "cannot release the write lock: %v", err)
	}
	return nil
}

type schemaObject struct{ typ, name, table, sql string }

func (o schemaObject) String() string { return o.typ + " " + o.name + " on " + o.table }

func (s *Store) checkSchema(ctx context.Context) error {
	want, err := expectedSchema()
	if err != nil {
		return err
	}
	got, err := readSchema(ctx, s.reader)
	if err != nil {
		return mapErr(err, "readiness")
	}
	for i := 0; i < len(want) || i < len(got); i++ {
		switch {
		case i >= len(got):
			return notReady(CheckSchema, "%s is missing", want[i])
		case i >= len(want):
			return notReady(CheckSchema, "%s is not part of the schema; remove it", got[i])
		case got[i] != want[i]:
			return notReady(CheckSchema, "%s differs from the migrated definition (expected %s)", got[i], want[i])
		}
	}
	return nil
}

func readSchema(ctx context.Context, q queryer) ([]schemaObject, error) {
	rows, err := q.QueryContext(ctx, qSchemaObjects)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []schemaObject
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.typ, &o.name, &o.table, &o.sql); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

var (
	expectedOnce sync.Once
	expectedObjs []schemaObject
	expectedErr  error
)

// expectedSchema is what the stream produces on an empty in-memory
// database: the reference the file's schema must equal exactly.
func expectedSchema() ([]schemaObject, error) {
	expectedOnce.Do(func() {
		db, err := sql.Open("sqlite", ":memory:")
		if err != nil {
			expectedErr = err
			return
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		ctx := context.Background()
		for _, m := range Stream() {
			if _, err := db.ExecContext(ctx, m.sql); err != nil {
				expectedErr = qlerror.Wrap(qlerror.Internal, err, "migration %s does not apply to an empty database", m.ID)
				return
			}
		}
		expectedObjs, expectedErr = readSchema(ctx, db)
	})
	return expectedObjs, expectedErr
}

// versionAtLeast compares dotted numeric versions.
func versionAtLeast(have, want string) bool {
	h, w := strings.Split(have, "."), strings.Split(want, ".")
	for i := range w {
		var hv int
		if i < len(h) {
			hv, _ = strconv.Atoi(h[i])
		}
		wv, _ := strconv.Atoi(w[i])
		if hv != wv {
			return hv > wv
		}
	}
	return true
}
