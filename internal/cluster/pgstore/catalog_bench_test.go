package pgstore

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// BenchmarkApply10kTriggers: applying a file of 10,000 triggers, as one
// transaction, against one transaction per object in the same run.
// Target: at most 5 s per file.
func BenchmarkApply10kTriggers(b *testing.B) {
	s := newStore(b)
	meter := s.cpuMeter(b)
	storetest.BenchApply(b, s.fixture(), func(b *testing.B) time.Duration {
		u := meter.used(b)
		return u.Process + u.Server
	})
}
