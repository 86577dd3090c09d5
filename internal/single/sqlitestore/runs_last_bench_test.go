package sqlitestore

import (
	"fmt"
	"testing"
)

// A full page of the triggers list (500 triggers) reads the newest Run of
// each in one RunsLast, with 20 Runs kept per trigger: what `ql triggers
// list`, GET /api/v1/triggers and the console's list pay for their last
// Run column. Reported per page.
func BenchmarkRunsLastOfAFullTriggersPage(b *testing.B) {
	const page, runsEach = 500, 20
	e := newEnv(b)
	p := e.projectTB(b, "bench")
	tk := e.taskTB(b, p.ID)
	triggers := make([]string, page)
	for i := range triggers {
		triggers[i] = e.triggerTB(b, p.ID, tk, fmt.Sprintf("t%05d", i))
	}
	bl := prepareBaseline(b, e)
	for range runsEach {
		for _, tg := range triggers {
			bl.insert(b, e, p.ID, tk, tg)
		}
	}
	for b.Loop() {
		last, err := e.store.RunsLast(b.Context(), triggers)
		if err != nil || len(last) != page {
			b.Fatalf("RunsLast: %d of %d triggers, %v", len(last), page, err)
		}
	}
}
