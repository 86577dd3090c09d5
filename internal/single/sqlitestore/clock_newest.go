package sqlitestore

import "context"

var qClockNewestRecorded = query("clock_newest_recorded")

// ClockNewestRecordedMs is the newest time the injected clock gave a
// write the store keeps: a clock that now reads earlier went back, or
// reads wrong (a device without a battery-backed clock that booted with
// an old date). 0 for a database that recorded nothing yet.
func (s *Store) ClockNewestRecordedMs(ctx context.Context) (int64, error) {
	var ms int64
	err := s.read(ctx, "read the newest time the database recorded", func(tx *txn) error {
		return tx.QueryRowContext(ctx, qClockNewestRecorded).Scan(&ms)
	})
	return ms, err
}
