package sqlitestore

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/single/attemptlog"
)

// nameForRemoval names the logs' files in retention_logs, before their
// attempts go or forget them in the same transaction, and counts them as
// deleted.
func nameForRemoval(ctx context.Context, tx *txn, logs []logFile, d *retention.Deleted) error {
	if len(logs) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, qRetentionLogsRecord, jsonList(attemptIDs(logs))); err != nil {
		return err
	}
	for _, l := range logs {
		d.Logs++
		d.LogBytes += l.bytes
	}
	return nil
}

func attemptIDs(logs []logFile) []string {
	ids := make([]string, len(logs))
	for i, l := range logs {
		ids[i] = l.id
	}
	return ids
}

// remove removes the logs' files, outside any transaction, until most of
// them could not be removed; one already gone counts as removed. The
// removed ones' names are deleted by the next write (takeRemoved); one the
// file system refuses to remove stays named and is returned.
func (r *Retention) remove(logs []logFile, most int) []retention.Kept {
	var kept []retention.Kept
	var gone []string
	for _, l := range logs {
		if len(kept) == most {
			break
		}
		path := attemptlog.Path(r.logDir, l.id)
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			kept = append(kept, retention.Kept{Run: l.run, Attempt: l.id, Path: path, Err: err})
			continue
		}
		gone = append(gone, l.id)
	}
	r.giveBack(gone)
	return kept
}

// takeRemoved takes the removed files' names for a write to delete.
func (r *Retention) takeRemoved() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.removed
	r.removed = nil
	return out
}

// giveBack keeps removed files' names for the next write.
func (r *Retention) giveBack(ids []string) {
	if len(ids) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.removed = append(r.removed, ids...)
}

// RetentionFinish removes the files earlier batches named for removal and
// left (a stop between a batch's commit and its removals, in this process
// or another, or a file the file system refused), a page at a time, each
// page's names deleted in a short write once its files are gone. It stops
// after retention.KeptPerRule files it cannot remove and returns those.
func (r *Retention) RetentionFinish(ctx context.Context) ([]retention.Kept, error) {
	var kept []retention.Kept
	var skip []string
	for len(kept) < retention.KeptPerRule {
		var left []logFile
		err := r.store.read(ctx, "read the log files retention left", func(tx *txn) error {
			rows, err := tx.QueryContext(ctx, qRetentionLogsLeft, logPage, jsonList(skip))
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var l logFile
				if err := rows.Scan(&l.id, &l.run); err != nil {
					return err
				}
				left = append(left, l)
			}
			return rows.Err()
		})
		if err != nil {
			return kept, err
		}
		for _, k := range r.remove(left, retention.KeptPerRule-len(kept)) {
			kept = append(kept, k)
			skip = append(skip, k.Attempt)
		}
		if err := r.forgetRemoved(ctx); err != nil || len(left) == 0 {
			return kept, err
		}
	}
	return kept, nil
}

// forgetRemoved deletes the names of the files removed since the last
// write, in a short write of its own.
func (r *Retention) forgetRemoved(ctx context.Context) error {
	removed := r.takeRemoved()
	if len(removed) == 0 {
		return nil
	}
	err := r.store.write(ctx, "forget the log files retention removed", routine, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, qRetentionLogsRemoved, jsonList(removed))
		return err
	})
	if err != nil {
		r.giveBack(removed)
	}
	return err
}
