package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// The trigger history benchmarks' shape: HistoryBenchTriggers triggers,
// each republished until it has HistoryBenchRevisions revisions.
const (
	HistoryBenchTriggers  = 1000
	HistoryBenchRevisions = 50
)

// SeedTriggerHistory publishes project history with triggers tasks, each
// with one trigger, and republishes the whole file with another cron
// minute until each trigger has revisions revisions (at most 60), as a
// panel whose file is edited and applied again and again.
func SeedTriggerHistory(tb testing.TB, svc catalog.Service, triggers, revisions int) {
	tb.Helper()
	for rev := range revisions {
		var b strings.Builder
		b.WriteString("project: history\ntasks:\n")
		for i := range triggers {
			fmt.Fprintf(&b, "  - {name: task-%04d, script: 'node /ql/scripts/jd_task_%04d.js'}\n", i, i)
		}
		b.WriteString("triggers:\n")
		for i := range triggers {
			fmt.Fprintf(&b, "  - {name: tick-%04d, task: task-%04d, cron: \"%d * * * *\", timezone: UTC, misfire: skip}\n", i, i, rev)
		}
		doc, err := apply.Parse("history.yaml", []byte(b.String()))
		if err != nil {
			tb.Fatalf("parse the history benchmark's file: %v", err)
		}
		if _, err := apply.Apply(context.Background(), svc, doc, ids.New); err != nil {
			tb.Fatalf("apply the history benchmark's file (revision %d): %v", rev+1, err)
		}
	}
}

// HistoryList lists a first page of 50 triggers for search ("" none): how
// many it listed and the first one's revision.
type HistoryList func(ctx context.Context, search string) (n int, firstRevision int64, err error)

// BenchTriggerPage measures list over triggers SeedTriggerHistory
// republished until they had revisions revisions: a first page of 50, and
// a search for the last of HistoryBenchTriggers' names, which walks every
// trigger for a page of one.
func BenchTriggerPage(b *testing.B, revisions int, list HistoryList) {
	for _, c := range []struct {
		name, search string
		want         int
	}{{"page", "", 50}, {"search", fmt.Sprintf("tick-%04d", HistoryBenchTriggers-1), 1}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				n, rev, err := list(b.Context(), c.search)
				if err != nil || n != c.want || rev != int64(revisions) {
					b.Fatalf("listing %q gave %d triggers, the first at revision %d, %v; want %d at revision %d", c.search, n, rev, err, c.want, revisions)
				}
			}
		})
	}
}

// StatusHistory is BenchTriggerPage's list over a store's trigger listing.
func StatusHistory(r schedule.StatusReader) HistoryList {
	return func(ctx context.Context, search string) (int, int64, error) {
		list, _, err := r.TriggerList(ctx, schedule.TriggerListParams{Limit: 50, Search: search})
		if err != nil || len(list) == 0 {
			return len(list), 0, err
		}
		return len(list), list[0].Revision, nil
	}
}
