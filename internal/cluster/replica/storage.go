package replica

import (
	"context"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/retention"
)

// storage reads the database's and the run logs' sizes through the live
// activation's runtime pool: absent, like the other store reads, while
// the replica has none. A replica has no data directory of its own to
// report the free space of: PostgreSQL's disk is the database server's.
func (r *replica) storage() metrics.Storage {
	through := func(read func(*pgstore.Runtime, context.Context) (int64, error)) func(context.Context) (int64, error) {
		return func(ctx context.Context) (int64, error) {
			act := r.adm.current()
			if act == nil {
				return 0, errNoActivation
			}
			return read(act.rt, ctx)
		}
	}
	return metrics.Storage{
		DatabaseBytes: through((*pgstore.Runtime).DatabaseSize),
		RunLogsBytes:  through((*pgstore.Runtime).RunLogsSize),
	}
}

// retentionObserver counts the retention loop's passes in the metrics;
// nil without metrics.
func (r *replica) retentionObserver() func(retention.Report, error) {
	if r.metrics == nil {
		return nil
	}
	return r.metrics.RetentionLoop()
}
