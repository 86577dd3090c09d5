package sqlitestore

import (
	"context"
	"errors"
	"time"

	"modernc.org/sqlite"
)

// CheckFile runs SQLite's integrity_check (quick: quick_check, which skips
// the cross-check of each index against its table) over the database file
// at path, opened as the read commands open it (OpenReadOnly): it writes
// nothing and takes no lock a server holds, only a read transaction in the
// WAL, so it runs beside a serving server. It returns SQLite's findings,
// none for a sound file; a file SQLite cannot even read through (a
// SQLITE_CORRUPT or SQLITE_NOTADB error, a header overwritten) is a
// finding too, named by the error. An error is a check that could not be
// run (no such file, no permission to read it).
func CheckFile(ctx context.Context, path string, quick bool) ([]string, error) {
	s, err := OpenReadOnly(ctx, Config{Path: path, NowMs: func() int64 { return time.Now().UnixMilli() }, ReadConns: 1})
	if err != nil {
		if c := corruption(err); c != "" {
			return []string{c}, nil
		}
		return nil, err
	}
	defer func() { _ = s.Close() }() // read-only: closing it loses nothing
	check := qPragmaIntegrityCheck
	if quick {
		check = qPragmaQuickCheck
	}
	found, err := s.integrityFindings(ctx, check)
	if c := corruption(err); c != "" {
		return []string{c}, nil
	}
	if err != nil {
		return nil, mapErr(err, "check the integrity of "+path)
	}
	return found, nil
}

// corruption is SQLite's own message of an error that says the file is
// corrupt or not a database, "" for any other.
func corruption(err error) string {
	var se *sqlite.Error
	if !isNotADatabase(err) || !errors.As(err, &se) {
		return ""
	}
	return se.Error()
}
