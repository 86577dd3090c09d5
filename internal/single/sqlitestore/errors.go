package sqlitestore

import (
	"context"
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// sqliteCode returns the extended result code of a driver error, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()
	}
	return 0
}

func primaryCode(err error) int { return sqliteCode(err) & 0xff }

// isUnique reports a UNIQUE or PRIMARY KEY violation.
func isUnique(err error) bool {
	c := sqliteCode(err)
	return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

// isNotADatabase reports a file SQLite cannot read as a database: no
// change of permissions or directory helps it, only a backup does.
func isNotADatabase(err error) bool {
	c := primaryCode(err)
	return c == sqlite3.SQLITE_CORRUPT || c == sqlite3.SQLITE_NOTADB
}

// mapErr is the one place driver errors become qlerror codes. what names
// the operation for the message.
func mapErr(err error, what string) error {
	if err == nil {
		return nil
	}
	var qe *qlerror.Error
	if errors.As(err, &qe) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	switch c := primaryCode(err); {
	case c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED:
		return qlerror.Wrap(qlerror.Unavailable, err, "%s: the database is locked by another writer; retry, or check for a stuck process holding the file", what)
	case c == sqlite3.SQLITE_READONLY:
		return qlerror.Wrap(qlerror.Unavailable, err, "%s: the database file is read-only; check its permissions and those of its directory", what)
	case c == sqlite3.SQLITE_FULL:
		return qlerror.Wrap(qlerror.Unavailable, err, "%s: the disk is full; free space and retry", what)
	case c == sqlite3.SQLITE_IOERR || c == sqlite3.SQLITE_CANTOPEN:
		return qlerror.Wrap(qlerror.Unavailable, err, "%s: the database file could not be read or written", what)
	case isNotADatabase(err):
		return qlerror.Wrap(qlerror.Internal, err, "%s: the database file is corrupt or not a SQLite database; restore it from a backup", what)
	case isUnique(err):
		return qlerror.Wrap(qlerror.Conflict, err, "%s: a uniqueness fence failed", what)
	}
	return qlerror.Wrap(qlerror.Internal, err, "%s", what)
}
