package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
)

var (
	qHandoverMark     = query("handover_mark")
	qHandoverRead     = query("handover_read")
	qHandoverTakeBack = query("handover_take_back")
	qRunsQueuedCount  = query("runs_queued_count")
)

// Handover is a database's mark of having been handed over to another
// (`ql export --with-state`): when, and by whom.
type Handover struct {
	AtMs  int64
	Actor string
	// DataDir is the data directory the export ran on; "" when the mark
	// predates its recording.
	DataDir string
}

// MarkHandedOver marks the database handed over as h says, durably:
// the mark is what keeps a server from running on it the triggers the
// target runs from then on. A mark already there is kept.
func (s *Store) MarkHandedOver(ctx context.Context, h Handover) error {
	return s.write(ctx, "mark the database handed over", durable, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, qHandoverMark, h.AtMs, h.Actor, h.DataDir)
		return err
	})
}

// HandedOver reads the database's handover mark; ok is false when it has
// none.
func (s *Store) HandedOver(ctx context.Context) (h Handover, ok bool, err error) {
	err = s.readPool().QueryRowContext(ctx, qHandoverRead).Scan(&h.AtMs, &h.Actor, &h.DataDir)
	if errors.Is(err, sql.ErrNoRows) {
		return h, false, nil
	}
	return h, err == nil, mapErr(err, "read the handover mark")
}

// TakeBack removes the handover mark, durably; it reports whether there
// was one.
func (s *Store) TakeBack(ctx context.Context) (bool, error) {
	var had bool
	err := s.write(ctx, "take the database back", durable, func(tx *txn) error {
		res, err := tx.ExecContext(ctx, qHandoverTakeBack)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		had = n == 1
		return err
	})
	return had, err
}

// Queued counts the Runs waiting queued and says when the longest-waiting
// one was queued (0 when none is): on a handed-over database they wait
// until it is taken back.
func (s *Store) Queued(ctx context.Context) (n int, oldestMs int64, err error) {
	var oldest sql.NullInt64
	err = s.readPool().QueryRowContext(ctx, qRunsQueuedCount).Scan(&n, &oldest)
	return n, oldest.Int64, mapErr(err, "count the queued Runs")
}
