package sqlitestore

import (
	"fmt"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// BenchmarkTriggerListHistory measures a first page of the triggers list
// and a search that walks every trigger (storetest.BenchTriggerPage) over
// 1,000 triggers published once and over the same triggers republished
// until each has 50 revisions.
func BenchmarkTriggerListHistory(b *testing.B) {
	for _, revisions := range []int{1, storetest.HistoryBenchRevisions} {
		e := newEnv(b)
		storetest.SeedTriggerHistory(b, e.service(), storetest.HistoryBenchTriggers, revisions)
		b.Run(fmt.Sprintf("revisions=%d", revisions), func(b *testing.B) {
			storetest.BenchTriggerPage(b, revisions, storetest.StatusHistory(e.store))
		})
	}
}
