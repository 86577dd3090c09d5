package sqlitestore

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// DefaultPageBytes is SQLite's own page size, every database's before
// Config.PageBytes; MinPageBytes and MaxPageBytes are SQLite's limits.
const (
	DefaultPageBytes = 4096
	MinPageBytes     = 512
	MaxPageBytes     = 65536
)

// PageBytesOf is the page size of the database at path, or newPageBytes
// when there is none yet (no file, or an empty one: Open makes a new
// database in it with Config.PageBytes). A file whose header does not
// read as a database's counts as DefaultPageBytes: Open refuses it anyway.
func PageBytesOf(path string, newPageBytes int) int {
	f, err := os.Open(path)
	if err != nil {
		return newPageBytes
	}
	defer f.Close() //nolint:errcheck // read only
	// The header's bytes 16–17 hold the page size, big-endian; 1 stands
	// for 65536, which two bytes cannot hold.
	header := make([]byte, 18)
	n, err := io.ReadFull(f, header)
	switch {
	case n == 0:
		return newPageBytes
	case err != nil:
		return DefaultPageBytes
	}
	size := int(binary.BigEndian.Uint16(header[16:]))
	if size == 1 {
		return MaxPageBytes
	}
	if size < MinPageBytes || size&(size-1) != 0 {
		return DefaultPageBytes
	}
	return size
}

// setNewPageSize gives an empty database file (just created, or left
// empty by a copy cut short: Open makes a new database in either) its
// page size. SQLite fixes the page size when it first writes the file,
// and the writer's switch to WAL, its first write, would fix it at the
// default: so the size is set, and the file switched to WAL, on a
// connection of its own before the pools open. Each commit writes every
// page it changed whole into the WAL, and a Run's commits change one page
// in each of a dozen tables and indexes, so smaller pages write less.
func setNewPageSize(path string, pageBytes int) error {
	if pageBytes == DefaultPageBytes {
		return nil
	}
	if info, err := os.Stat(path); err != nil || info.Size() > 0 {
		return nil
	}
	db, err := sql.Open("sqlite", existingFile(path))
	if err != nil {
		return mapErr(err, "open "+path)
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("PRAGMA page_size = %d; PRAGMA journal_mode = WAL", pageBytes)); err != nil {
		return mapErr(err, fmt.Sprintf("set the page size of the new database %s to %d bytes", path, pageBytes))
	}
	return mapErr(db.Close(), "close "+path)
}
