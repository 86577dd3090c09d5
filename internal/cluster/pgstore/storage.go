package pgstore

import "context"

// sql/storage.sql: the sizes monitoring reads.
var (
	sqlStorageDatabaseSize = stmt("StorageDatabaseSize")
	sqlStorageRunLogsSize  = stmt("StorageRunLogsSize")
)

// DatabaseSize is what the cluster's database takes on disk, in bytes.
func (r *Runtime) DatabaseSize(ctx context.Context) (int64, error) {
	var n int64
	if err := r.pool.QueryRow(ctx, sqlStorageDatabaseSize).Scan(&n); err != nil {
		return 0, mapErr(err, "reading the database's size")
	}
	return n, nil
}

// RunLogsSize is what the run logs, stored as rows of the database, take
// on disk, in bytes.
func (r *Runtime) RunLogsSize(ctx context.Context) (int64, error) {
	var n int64
	if err := r.pool.QueryRow(ctx, sqlStorageRunLogsSize).Scan(&n); err != nil {
		return 0, mapErr(err, "reading the run logs' size")
	}
	return n, nil
}
