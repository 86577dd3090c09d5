package pgstore

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/task"
)

// TestConcurrentAppliesOfDifferentProjectsAllSucceed: operators applying
// different projects at the same moment must not see each other's
// publishing as a failure. The catalog tables are small, so SERIALIZABLE's
// page-level predicate locks make unrelated publishes conflict; the retry
// budget has to absorb that.
func TestConcurrentAppliesOfDifferentProjectsAllSucceed(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	const projects, objects = 8, 6
	svc := catalog.Service{Store: s.admin, Executor: task.RemoteWorker, NowMs: func() int64 { return time.Now().UnixMilli() }}
	docs := make([]*apply.Document, projects)
	for i := range docs {
		var b strings.Builder
		fmt.Fprintf(&b, "project: p%d\ntasks:\n", i)
		for j := range objects {
			fmt.Fprintf(&b, "  - name: job%d\n    script: echo %d\n", j, j)
		}
		b.WriteString("triggers:\n")
		for j := range objects {
			fmt.Fprintf(&b, "  - {name: t%d, task: job%d, cron: \"* * * * *\", timezone: UTC}\n", j, j)
		}
		doc, err := apply.Parse(fmt.Sprintf("p%d.yaml", i), []byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		docs[i] = doc
	}
	var wg sync.WaitGroup
	errs := make([]error, projects)
	start := make(chan struct{})
	for i := range docs {
		wg.Go(func() {
			<-start
			_, errs[i] = apply.Apply(t.Context(), svc, docs[i], ids.New)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("apply of project p%d beside %d others: %v", i, projects-1, err)
		}
	}
	var triggers int
	if err := s.super.QueryRow(t.Context(), `SELECT count(*) FROM qinglong.trigger_schedules`).Scan(&triggers); err != nil {
		t.Fatal(err)
	}
	if triggers != projects*objects {
		t.Fatalf("%d schedule rows after the applies, want %d", triggers, projects*objects)
	}
}
