package sqlitestore

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// DatabaseSize is what the database takes on disk: its file, and its
// write-ahead log (-wal), which holds the writes a checkpoint has not
// copied back yet and keeps its size until the next one resets it. Two
// stat calls, so a scrape may read it at any rate.
func (s *Store) DatabaseSize(context.Context) (int64, error) {
	db, err := os.Stat(s.cfg.Path)
	if err != nil {
		return 0, qlerror.Wrap(qlerror.Unavailable, err, "read the size of %s", s.cfg.Path)
	}
	wal, err := os.Stat(s.cfg.Path + "-wal")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// No write since the last connection closed: the log is gone.
		return db.Size(), nil
	case err != nil:
		return 0, qlerror.Wrap(qlerror.Unavailable, err, "read the size of %s-wal", s.cfg.Path)
	}
	return db.Size() + wal.Size(), nil
}

// RunLogsSize is what the run logs take on disk as the log cap counts
// them (retention.DiskBytes of each), in one read snapshot: the ended
// attempts' logs from their recorded sizes, one pass over the attempts_logs
// index, which holds only the logs still on disk; the running attempts'
// from their files.
func (r *Retention) RunLogsSize(ctx context.Context) (int64, error) {
	var ended, running int64
	err := r.store.read(ctx, "read the run logs' size", func(tx *txn) error {
		if err := tx.QueryRowContext(ctx, qRetentionLogBytes).Scan(&ended); err != nil {
			return err
		}
		var err error
		running, err = r.runningLogBytes(ctx, tx)
		return err
	})
	if err != nil {
		return 0, err
	}
	return ended + running, nil
}
