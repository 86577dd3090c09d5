package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
)

// Size of the file BenchmarkApply applies: 10,000 triggers over 100 tasks.
const (
	benchTasks    = 100
	benchTriggers = 10_000
)

// benchFile is a definitions file of project name with benchTasks tasks
// and benchTriggers triggers; minute varies every trigger's cron, so two
// files with different minutes differ in every trigger.
func benchFile(b *testing.B, name string, minute int) *apply.Document {
	b.Helper()
	var s strings.Builder
	fmt.Fprintf(&s, "project: %s\ntasks:\n", name)
	for i := range benchTasks {
		fmt.Fprintf(&s, "  - {name: job%03d, command: [/usr/bin/env, \"true\"]}\n", i)
	}
	s.WriteString("triggers:\n")
	for i := range benchTriggers {
		fmt.Fprintf(&s, "  - {name: t%05d, task: job%03d, cron: \"%d * * * *\", timezone: UTC}\n", i, i%benchTasks, minute)
	}
	doc, err := apply.Parse(name+".yaml", []byte(s.String()))
	if err != nil {
		b.Fatal(err)
	}
	return doc
}

// BenchApply measures `ql apply` of a file of 10,000 triggers: creating
// the project, republishing every trigger, and re-applying it unchanged.
// In the same run, "per-object" is the baseline of one transaction per
// object (read the current revision, publish the next), as publishing
// worked before a file became one transaction. Besides the wall time it
// reports cpu-s/op, the CPU time cpu measures (this process and the
// database server) across the applies only: on a shared machine wall time
// moves with everything else running there, CPU time far less.
func BenchApply(b *testing.B, f Fixture, cpu func(*testing.B) time.Duration) {
	ctx := context.Background()
	n := 0
	b.Run("file/create", func(b *testing.B) {
		m := meter{cpu: cpu}
		for b.Loop() {
			n++
			doc := benchFile(b, fmt.Sprintf("create%d", n), 1)
			m.run(b, func() { applyOrFail(b, f, doc) })
		}
		m.report(b)
	})
	b.Run("file/republish", func(b *testing.B) {
		applyOrFail(b, f, benchFile(b, "republish", 0))
		m := meter{cpu: cpu}
		minute := 0
		for b.Loop() {
			b.StopTimer()
			minute++
			doc := benchFile(b, "republish", minute%60)
			b.StartTimer()
			m.run(b, func() { applyOrFail(b, f, doc) })
		}
		m.report(b)
	})
	b.Run("file/unchanged", func(b *testing.B) {
		doc := benchFile(b, "unchanged", 0)
		applyOrFail(b, f, doc)
		m := meter{cpu: cpu}
		for b.Loop() {
			m.run(b, func() { applyOrFail(b, f, doc) })
		}
		m.report(b)
	})
	b.Run("per-object/create", func(b *testing.B) {
		m := meter{cpu: cpu}
		for b.Loop() {
			n++
			doc := benchFile(b, fmt.Sprintf("baseline%d", n), 1)
			m.run(b, func() { perObject(ctx, b, f, doc) })
		}
		m.report(b)
	})
}

// meter sums the CPU time of the measured calls of one benchmark.
type meter struct {
	cpu   func(*testing.B) time.Duration
	used  time.Duration
	calls int
}

func (m *meter) run(b *testing.B, fn func()) {
	start := m.cpu(b)
	fn()
	m.used += m.cpu(b) - start
	m.calls++
}

func (m *meter) report(b *testing.B) {
	b.ReportMetric(m.used.Seconds()/float64(m.calls), "cpu-s/op")
}

func applyOrFail(b *testing.B, f Fixture, doc *apply.Document) {
	b.Helper()
	if _, err := apply.Apply(context.Background(), f.Service, doc, ids.New); err != nil {
		b.Fatal(err)
	}
}

// perObject publishes doc's objects one transaction each.
func perObject(ctx context.Context, b *testing.B, f Fixture, doc *apply.Document) {
	b.Helper()
	p := project.Project{ID: ids.New(), Name: doc.Project, Status: project.Active}
	if _, err := f.Catalog.ProjectSave(ctx, p); err != nil {
		b.Fatal(err)
	}
	tasks := map[string]task.Revision{}
	for _, td := range doc.Tasks {
		if _, err := f.Catalog.TaskByName(ctx, p.ID, td.Spec.Name); err == nil {
			b.Fatalf("task %s exists before its create", td.Spec.Name)
		}
		rev, _, err := f.Service.PublishTask(ctx, p.ID, ids.New(), 0, ids.New(), td.Spec)
		if err != nil {
			b.Fatal(err)
		}
		tasks[td.Spec.Name] = rev
	}
	for _, tr := range doc.Triggers {
		if _, err := f.Catalog.TriggerByName(ctx, p.ID, tr.Spec.Name); err == nil {
			b.Fatalf("trigger %s exists before its create", tr.Spec.Name)
		}
		if _, _, err := f.Service.PublishTrigger(ctx, p.ID, ids.New(), tasks[tr.TaskName], 0, ids.New(), tr.Spec); err != nil {
			b.Fatal(err)
		}
	}
}
