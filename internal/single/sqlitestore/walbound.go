package sqlitestore

import "fmt"

// walBound is the writer's WAL settings for a bound of pages of pageBytes
// each (the file's page size). SQLite only ever rewrites its -wal file
// from the start once a checkpoint has copied it all back: it never
// shrinks it, so without a size limit the file keeps the size of its
// largest stretch between checkpoints (a burst of Runs, a reader holding
// an old snapshot meanwhile) for good, on a disk that may have only a few
// MiB. wal_autocheckpoint checkpoints at the first commit that takes the
// WAL past pages; journal_size_limit truncates the file back to the same
// size when the log restarts after a checkpoint that reached its end. The
// file then holds about pages pages plus the last transaction's, more
// only while a read transaction keeps a checkpoint from reaching the end.
func walBound(pages, pageBytes int) string {
	return fmt.Sprintf("&_pragma=wal_autocheckpoint(%d)&_pragma=journal_size_limit(%d)", pages, pages*pageBytes)
}
