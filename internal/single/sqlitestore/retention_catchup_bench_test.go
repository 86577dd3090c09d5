package sqlitestore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// BenchmarkRetentionCatchUp: how fast a year of expired history goes, and
// what admissions wait meanwhile (QL_BENCH_CATCHUP_BACKLOG,
// QL_BENCH_CATCHUP_WINDOW), under the previous pacing of the runs and
// logs rules (batches of 16 at a tenth of the time), each change alone,
// and both (RetentionOptions).
func BenchmarkRetentionCatchUp(b *testing.B) {
	e := newEnv(b)
	storetest.BenchRetentionCatchUp(b, e.fixture(),
		storetest.RetentionPacing{Name: "previous", Options: retention.Options{BatchSize: 16}},
		storetest.RetentionPacing{Name: "growing", Options: retention.Options{BatchSize: 16, MaxBatchSize: RetentionOptions.MaxBatchSize}},
		storetest.RetentionPacing{Name: "catchup", Options: retention.Options{BatchSize: 16, CatchUpShare: RetentionOptions.CatchUpShare}},
		storetest.RetentionPacing{Name: "now", Options: RetentionOptions},
	)
}
