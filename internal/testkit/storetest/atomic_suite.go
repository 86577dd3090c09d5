package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// fileOf is a definitions file of project alpha: the given tasks (name →
// argument of /usr/bin/env), then triggers (name → task) firing hourly at
// minute.
func fileOf(t *testing.T, tasks []string, arg string, triggers [][2]string, minute int) *apply.Document {
	t.Helper()
	var s strings.Builder
	s.WriteString("project: alpha\ntasks:\n")
	for _, name := range tasks {
		fmt.Fprintf(&s, "  - {name: %s, command: [/usr/bin/env, %q]}\n", name, arg)
	}
	s.WriteString("triggers:\n")
	for _, tr := range triggers {
		fmt.Fprintf(&s, "  - {name: %s, task: %s, cron: \"%d * * * *\", timezone: UTC}\n", tr[0], tr[1], minute)
	}
	doc, err := apply.Parse("alpha.yaml", []byte(s.String()))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func applyFile(t *testing.T, f Fixture, doc *apply.Document) []apply.Result {
	t.Helper()
	res, err := apply.Apply(t.Context(), f.Service, doc, ids.New)
	if err != nil {
		t.Fatalf("apply %s: %v", doc.File, err)
	}
	return res
}

// testFileIsAllOrNothing: a file whose last object fails publishes none of
// its objects, not the task update and new triggers before it.
func testFileIsAllOrNothing(t *testing.T, f Fixture) {
	applyFile(t, f, fileOf(t, []string{"job", "other"}, "true", [][2]string{{"tick", "job"}}, 1))
	p, err := f.Catalog.ProjectByName(t.Context(), "alpha")
	if err != nil {
		t.Fatal(err)
	}
	tick, err := f.Catalog.TriggerByName(t.Context(), p.ID, "tick")
	if err != nil {
		t.Fatal(err)
	}
	before := row(t, f, tick.TriggerID)
	// job changes, t1 and t2 are new, and the last object moves tick to
	// another task, which a trigger never does.
	bad := fileOf(t, []string{"job", "other"}, "false", [][2]string{{"t1", "job"}, {"t2", "job"}, {"tick", "other"}}, 2)
	_, err = apply.Apply(t.Context(), f.Service, bad, ids.New)
	requireCode(t, err, qlerror.FailedPrecondition, "file whose last trigger moves to another task")
	if !strings.Contains(err.Error(), "nothing was applied") {
		t.Errorf("error %q does not say that nothing was applied", err)
	}
	if job, err := f.Catalog.TaskByName(t.Context(), p.ID, "job"); err != nil || job.Revision != 1 {
		t.Fatalf("task job after the failed file: revision %d, %v; want still 1", job.Revision, err)
	}
	got, err := f.Catalog.TriggersByName(t.Context(), p.ID, []string{"t1", "t2", "tick"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["tick"].Revision != 1 {
		t.Fatalf("triggers after the failed file: %v; want only tick, at revision 1", names(got))
	}
	if after := row(t, f, tick.TriggerID); !sameRow(before, after) {
		t.Fatalf("the failed file reset tick's schedule row: %+v -> %+v", before, after)
	}
}

// testTxIsAllOrNothing: the store's own fence failing on the last item
// of a transaction rolls back everything the transaction wrote before it.
func testTxIsAllOrNothing(t *testing.T, f Fixture) {
	p := newProject(t, f, "alpha")
	off, err := f.Service.TaskParams(p.ID, ids.New(), 0, ids.New(), commandSpec("off", false))
	if err != nil {
		t.Fatal(err)
	}
	job, err := f.Service.TaskParams(p.ID, ids.New(), 0, ids.New(), commandSpec("job", true))
	if err != nil {
		t.Fatal(err)
	}
	good := triggerParams(t, f, p.ID, "good", job.Revision, true)
	// Enabled and pinned to a disabled task: the Service refuses to build
	// it, the store must refuse to write it.
	bad := triggerParams(t, f, p.ID, "bad", off.Revision, false)
	bad.Revision.Spec.Enabled = true
	bad.Revision.ContentDigest = trigger.ContentDigest(p.ID, bad.Revision.TriggerID, bad.Revision.TaskID, bad.Revision.TaskRevision, bad.Revision.TaskContentDigest, bad.Revision.Spec)
	err = f.Catalog.Publish(t.Context(), func(tx catalog.Tx) error {
		if _, err := tx.TasksPublish(t.Context(), []catalog.TaskPublishParams{off, job}); err != nil {
			return err
		}
		_, err := tx.TriggersPublish(t.Context(), []catalog.TriggerPublishParams{good, bad})
		var item *catalog.ItemError
		if !errors.As(err, &item) || item.Index != 1 {
			t.Errorf("the failing item: %v; want item 1 named", err)
		}
		return err
	})
	requireCode(t, err, qlerror.FailedPrecondition, "transaction whose last trigger pins a disabled task while enabled")
	tasks, err := f.Catalog.TasksByName(t.Context(), p.ID, []string{"off", "job"})
	if err != nil || len(tasks) != 0 {
		t.Fatalf("tasks after the failed transaction: %d, %v; want none", len(tasks), err)
	}
	if _, err := f.Catalog.TriggerByName(t.Context(), p.ID, "good"); !qlerror.Is(err, qlerror.NotFound) {
		t.Fatalf("trigger good after the failed transaction: %v; want not found", err)
	}
}

func triggerParams(t *testing.T, f Fixture, projectID, name string, pinned task.Revision, enabled bool) catalog.TriggerPublishParams {
	t.Helper()
	p, err := f.Service.TriggerParams(projectID, ids.New(), pinned, 0, ids.New(), trigger.Spec{Name: name, Enabled: enabled, Cron: quietCron(t, f)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// testOnePublishTimePerFile: every revision a file publishes carries the
// same time, on creation and on a republish.
func testOnePublishTimePerFile(t *testing.T, f Fixture) {
	tasks := []string{"a", "b", "c"}
	triggers := [][2]string{{"t1", "a"}, {"t2", "b"}, {"t3", "c"}, {"t4", "a"}, {"t5", "b"}}
	for i, arg := range []string{"true", "false"} {
		applyFile(t, f, fileOf(t, tasks, arg, triggers, i))
		p, err := f.Catalog.ProjectByName(t.Context(), "alpha")
		if err != nil {
			t.Fatal(err)
		}
		times := map[int64][]string{}
		ts, err := f.Catalog.TasksByName(t.Context(), p.ID, tasks)
		if err != nil {
			t.Fatal(err)
		}
		for name, r := range ts {
			times[r.CreatedAtMs] = append(times[r.CreatedAtMs], name)
		}
		tgs, err := f.Catalog.TriggersByName(t.Context(), p.ID, []string{"t1", "t2", "t3", "t4", "t5"})
		if err != nil {
			t.Fatal(err)
		}
		for name, r := range tgs {
			if r.Revision != int64(i+1) {
				t.Fatalf("apply #%d: trigger %s at revision %d", i+1, name, r.Revision)
			}
			times[r.CreatedAtMs] = append(times[r.CreatedAtMs], name)
		}
		if len(ts) != len(tasks) || len(tgs) != len(triggers) || len(times) != 1 {
			t.Fatalf("apply #%d: %d tasks, %d triggers, publish times %v; want every object at one time", i+1, len(ts), len(tgs), times)
		}
	}
}

// testReaderNeverSeesHalfAFile republishes every trigger of a file while
// a reader polls the first and the last: once the first shows the new
// revision, the last must too.
func testReaderNeverSeesHalfAFile(t *testing.T, f Fixture) {
	const n = 200
	var triggers [][2]string
	for i := range n {
		triggers = append(triggers, [2]string{fmt.Sprintf("t%03d", i), "job"})
	}
	first, last := triggers[0][0], triggers[n-1][0]
	applyFile(t, f, fileOf(t, []string{"job"}, "true", triggers, 1))
	p, err := f.Catalog.ProjectByName(t.Context(), "alpha")
	if err != nil {
		t.Fatal(err)
	}
	next := fileOf(t, []string{"job"}, "true", triggers, 2)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		defer cancel()
		_, err := apply.Apply(t.Context(), f.Service, next, ids.New)
		done <- err
	}()
	reads := 0
	for ctx.Err() == nil {
		a, err := f.Catalog.TriggerByName(t.Context(), p.ID, first)
		if err != nil {
			t.Fatal(err)
		}
		if a.Revision < 2 {
			reads++
			continue
		}
		z, err := f.Catalog.TriggerByName(t.Context(), p.ID, last)
		if err != nil {
			t.Fatal(err)
		}
		if z.Revision < 2 {
			t.Fatalf("after %d reads: %s is at revision %d while %s is still at %d; a reader saw half a file", reads, first, a.Revision, last, z.Revision)
		}
		break
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func names[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// testEveryTriggerMovedIsReported: a file moving several triggers to
// another task, which a trigger never does, is refused for each of them at
// its line, in a dry run as in an apply, and publishes nothing.
func testEveryTriggerMovedIsReported(t *testing.T, f Fixture) {
	applyFile(t, f, fileOf(t, []string{"job", "other"}, "true", [][2]string{{"tick", "job"}, {"stay", "job"}, {"tock", "job"}}, 1))
	// The triggers at lines 6 and 8 move; the one between stays.
	moved := fileOf(t, []string{"job", "other"}, "true", [][2]string{{"tick", "other"}, {"stay", "job"}, {"tock", "other"}}, 2)
	_, planned := apply.Plan(t.Context(), f.Service, f.Service.Store, moved, ids.New)
	_, applied := apply.Apply(t.Context(), f.Service, moved, ids.New)
	for what, err := range map[string]error{"dry run": planned, "apply": applied} {
		requireCode(t, err, qlerror.FailedPrecondition, what+" of a file moving two triggers")
		list, more := apply.Errors(err)
		if len(list) != 2 || more != 0 || list[0].Line != 6 || list[1].Line != 8 ||
			!strings.HasPrefix(list[0].Detail, `trigger "tick": is bound to another task`) || !strings.HasPrefix(list[1].Detail, `trigger "tock": is bound to another task`) {
			t.Errorf("%s: %d errors and %d more, want tick's at line 6 and tock's at line 8:\n%v", what, len(list), more, err)
		}
	}
	p, err := f.Catalog.ProjectByName(t.Context(), "alpha")
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Catalog.TriggersByName(t.Context(), p.ID, []string{"tick", "stay", "tock"})
	if err != nil {
		t.Fatal(err)
	}
	for name, tr := range got {
		if tr.Revision != 1 {
			t.Errorf("trigger %s after the refused file: revision %d, want still 1", name, tr.Revision)
		}
	}
}

// testArchivingFileWithAChangeSaysSo: a file that archives its project and
// also changes one of its triggers is refused whole, and the refusal names
// the file's own archiving and the changed fields: the store's "project is
// archived; set it active" would read as if the file had said active.
func testArchivingFileWithAChangeSaysSo(t *testing.T, f Fixture) {
	applyFile(t, f, fileOf(t, []string{"job"}, "true", [][2]string{{"tick", "job"}}, 1))
	archiving := fileOf(t, []string{"job"}, "true", [][2]string{{"tick", "job"}}, 2)
	archiving.Status = project.Archived
	_, err := apply.Apply(t.Context(), f.Service, archiving, ids.New)
	requireCode(t, err, qlerror.FailedPrecondition, "file archiving its project and changing a trigger")
	if r := qlerror.ReasonOf(err); r != apply.RefusalArchivingWithChanges {
		t.Errorf("reason %q, want %q (%v)", r, apply.RefusalArchivingWithChanges, err)
	}
	for _, want := range []string{`trigger "tick"`, `this file archives project "alpha" and changes this trigger (cron.expression)`, "ql triggers show alpha/tick"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if p, err := f.Catalog.ProjectByName(t.Context(), "alpha"); err != nil || p.Status != project.Active {
		t.Fatalf("project after the refused file: %+v, %v; want still active", p, err)
	}
}
