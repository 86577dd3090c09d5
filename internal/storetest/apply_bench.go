package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/apply"
	"github.com/qinglong/qinglong/internal/ids"
	"github.com/qinglong/qinglong/internal/project"
	"github.com/qinglong/qinglong/internal/task"
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
// worked before a file became one transaction.
func BenchApply(b *testing.B, f Fixture) {
	ctx := context.Background()
	n := 0
	b.Run("file/create", func(b *testing.B) {
		for b.Loop() {
			n++
			applyOrFail(b, f, benchFile(b, fmt.Sprintf("create%d", n), 1))
		}
	})
	b.Run("file/republish", func(b *testing.B) {
		applyOrFail(b, f, benchFile(b, "republish", 0))
		minute := 0
		for b.Loop() {
			b.StopTimer()
			minute++
			doc := benchFile(b, "republish", minute%60)
			b.StartTimer()
			applyOrFail(b, f, doc)
		}
	})
	b.Run("file/unchanged", func(b *testing.B) {
		doc := benchFile(b, "unchanged", 0)
		applyOrFail(b, f, doc)
		for b.Loop() {
			applyOrFail(b, f, doc)
		}
	})
	b.Run("per-object/create", func(b *testing.B) {
		for b.Loop() {
			n++
			perObject(ctx, b, f, benchFile(b, fmt.Sprintf("baseline%d", n), 1))
		}
	})
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
