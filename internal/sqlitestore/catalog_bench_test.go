package sqlitestore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/storetest"
)

// BenchmarkApply10kTriggers: applying a file of 10,000 triggers, as one
// transaction, against one transaction per object in the same run.
// Target: at most 5 s per file.
func BenchmarkApply10kTriggers(b *testing.B) {
	storetest.BenchApply(b, newEnv(b).fixture())
}
