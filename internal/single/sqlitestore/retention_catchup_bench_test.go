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
	// The fixture's own connection makes the triggers due between rounds:
	// committed without waiting for the disk, as the store's routine
	// commits are, so that a batch waiting for its lock waits for a
	// write and not for a flush no server makes there.
	e.raw.SetMaxOpenConns(1)
	if _, err := e.raw.Exec(`PRAGMA synchronous = NORMAL`); err != nil {
		b.Fatal(err)
	}
	storetest.BenchRetentionCatchUp(b, e.fixture(),
		storetest.RetentionPacing{Name: "previous", Options: retention.Options{BatchSize: 16}},
		storetest.RetentionPacing{Name: "growing", Options: retention.Options{BatchSize: 16, MaxBatchSize: RetentionOptions.MaxBatchSize}},
		storetest.RetentionPacing{Name: "catchup", Options: retention.Options{BatchSize: 16, CatchUpShare: RetentionOptions.CatchUpShare}},
		storetest.RetentionPacing{Name: "now", Options: RetentionOptions},
	)
}
