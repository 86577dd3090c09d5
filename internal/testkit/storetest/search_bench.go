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

// SearchBenchTasks is how many tasks, each with one trigger, the search
// benchmarks publish: the most one definitions file holds.
const SearchBenchTasks = apply.MaxTasks

// The search benchmarks' texts: the last trigger's name, the last task's
// script, and text in nothing, which walks every trigger of the project.
const (
	SearchBenchName    = "tick-09999"
	SearchBenchScript  = "jd_task_09999.js"
	SearchBenchNowhere = "jd_no_such_script.js"
)

// SeedSearch publishes project bench with SearchBenchTasks tasks, a
// qinglong panel's: each runs its own script (node
// /ql/scripts/jd_task_NNNNN.js), half as shell scripts and half as argv
// commands, and has one trigger, tick-NNNNN.
func SeedSearch(tb testing.TB, svc catalog.Service) {
	tb.Helper()
	var b strings.Builder
	b.WriteString("project: bench\ntasks:\n")
	for i := range SearchBenchTasks {
		if i%2 == 0 {
			fmt.Fprintf(&b, "  - {name: task-%05d, script: 'node /ql/scripts/jd_task_%05d.js'}\n", i, i)
		} else {
			fmt.Fprintf(&b, "  - {name: task-%05d, command: [/usr/bin/node, /ql/scripts/jd_task_%05d.js]}\n", i, i)
		}
	}
	b.WriteString("triggers:\n")
	for i := range SearchBenchTasks {
		fmt.Fprintf(&b, "  - {name: tick-%05d, task: task-%05d, cron: \"7 * * * *\", timezone: UTC, misfire: skip}\n", i, i)
	}
	doc, err := apply.Parse("bench.yaml", []byte(b.String()))
	if err != nil {
		tb.Fatalf("parse the search benchmark's file: %v", err)
	}
	if _, err := apply.Apply(context.Background(), svc, doc, ids.New); err != nil {
		tb.Fatalf("apply the search benchmark's file: %v", err)
	}
}

// NamesOnlyRows is what an adapter's names-only listing answers: rows
// that BenchSearch reads to their end, which closes them (in
// database/sql and in pgx alike).
type NamesOnlyRows interface {
	Next() bool
	Err() error
}

// BenchSearch measures a first page of search over SeedSearch's triggers
// for each of the benchmark's texts: r's trigger listing (withCommands),
// beside the names-only search it replaced (namesOnly), which finds no
// script: an adapter's query of the search's LIKE pattern, limit rows
// (the page's 50 and one more).
func BenchSearch(b *testing.B, r schedule.StatusReader, namesOnly func(ctx context.Context, pattern string, limit int) (NamesOnlyRows, error)) {
	b.Run("namesOnly", func(b *testing.B) {
		benchSearchTexts(b, true, func(ctx context.Context, search string) (int, error) {
			pattern, err := schedule.TriggerListParams{Search: search}.SearchPattern()
			if err != nil {
				return 0, err
			}
			rows, err := namesOnly(ctx, pattern, 51)
			if err != nil {
				return 0, err
			}
			n := 0
			for rows.Next() {
				n++
			}
			return n, rows.Err()
		})
	})
	b.Run("withCommands", func(b *testing.B) {
		benchSearchTexts(b, false, func(ctx context.Context, search string) (int, error) {
			list, _, err := r.TriggerList(ctx, schedule.TriggerListParams{Limit: 50, Search: search})
			return len(list), err
		})
	})
}

// benchSearchTexts measures list's first page for each of the
// benchmark's texts; namesOnly for a search that finds no script.
func benchSearchTexts(b *testing.B, namesOnly bool, list func(ctx context.Context, search string) (int, error)) {
	scripts := 1
	if namesOnly {
		scripts = 0
	}
	for _, c := range []struct {
		name, search string
		want         int
	}{{"name", SearchBenchName, 1}, {"script", SearchBenchScript, scripts}, {"nowhere", SearchBenchNowhere, 0}} {
		b.Run("search="+c.name, func(b *testing.B) {
			for b.Loop() {
				n, err := list(b.Context(), c.search)
				if err != nil || n != c.want {
					b.Fatalf("search %q found %d triggers, %v; want %d", c.search, n, err, c.want)
				}
			}
		})
	}
}
