package server

import (
	"context"
	"syscall"

	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
)

// storage is what a single-node server can read of the disk it fills:
// its database file and the file system holding the data directory (the
// database, the run logs and the secrets).
func (s *Server) storage() metrics.Storage {
	return metrics.Storage{
		DatabaseBytes: func(ctx context.Context) (int64, error) {
			// A moved database's path names another file, or none:
			// its size would not be this server's database's.
			if s.moved.Load() {
				return 0, qlerror.New(qlerror.Unavailable, "the database path %s no longer names the server's database", s.layout.DB)
			}
			return s.store.DatabaseSize(ctx)
		},
		RunLogsBytes:     s.store.Retention(s.layout.Logs).RunLogsSize,
		DataDirFreeBytes: func() (int64, error) { return freeBytes(s.cfg.DataDir) },
	}
}

// freeBytes is what the file system holding dir has free for an
// unprivileged user (f_bavail): the blocks it keeps for root are left out,
// since a disk is full for the server when they are all that is left,
// unless it runs as root.
func freeBytes(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, qlerror.Wrap(qlerror.Unavailable, err, "statfs %s", dir)
	}
	return int64(st.Bavail) * int64(st.Bsize), nil //nolint:gosec // G115: a block count and size fit in int64
}

// retentionObserver counts the retention loop's passes in the metrics;
// nil without metrics.
func (s *Server) retentionObserver() func(retention.Report, error) {
	if s.metrics == nil {
		return nil
	}
	return s.metrics.RetentionLoop()
}
