package storetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// editBase is a project whose shell task s sets every field an edit must
// keep, with a trigger every of its own, beside an argv task u and its
// trigger uu.
const editBase = `project: edit
tasks:
  - name: s
    shell: /bin/bash
    script: |
      echo before
    env: {A: "1", B: {secret: b-key}}
    workingDir: /tmp
    timeout: 90s
    killGrace: 2s
    labels: {team: ops}
    retry: {maxAttempts: 2, backoff: 5s}
  - {name: u, command: [/bin/echo, u]}
triggers:
  - {name: every, task: s, cron: "* * * * *", timezone: UTC, misfire: skip, jitter: 2s, overlap: queue_one}
  - {name: uu, task: u, cron: "0 3 * * *", timezone: UTC}
`

// results says apply's results as "kind name: change [fields]".
func results(res []apply.Result) string {
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = fmt.Sprintf("%s %s: %s %v", r.Kind, r.Name, r.Change, r.Fields)
	}
	return strings.Join(out, "; ")
}

// testAnEditedScriptChangesOnlyItsTask: the Edit task form's file,
// written from the task the form showed, changes the task's script and
// timeout and nothing else of it (its shell, environment, retry… as they
// were), carries the task's trigger to the new revision, so that it runs
// the new script, and leaves the other task and trigger as they are.
func testAnEditedScriptChangesOnlyItsTask(t *testing.T, f Fixture) {
	applyFile(t, f, parse(t, "base.yaml", []byte(editBase)))
	e, err := apply.TaskToEdit(t.Context(), f.Definitions, "edit", "s")
	if err != nil || e.Script != "echo before\n" || e.Timeout != "90s" || e.Shell != "/bin/bash" || e.Revision != 1 {
		t.Fatalf("the form shows %+v, %v; want task s's script, timeout and shell at revision 1", e, err)
	}
	e.Script, e.Timeout = "echo after\n", "2m"
	text, expect, err := apply.EditTaskFile(t.Context(), f.Definitions, e)
	if err != nil || fmt.Sprint(expect) != "[task s 1]" {
		t.Fatalf("the form's file: %v, written from %v; want it written from task s revision 1", err, expect)
	}
	got := results(applyFile(t, f, parse(t, "edit.yaml", text)))
	if w := "project edit: unchanged []; task s: updated [command.script command.timeoutMs]; trigger every: updated [taskRevision]"; got != w {
		t.Fatalf("applying the form's file: %s\nwant %s\n%s", got, w, text)
	}
	if p := fmt.Sprint(pinsOf(t, f, "edit")); p != "map[every:r2 pins 2 of 2 uu:r1 pins 1 of 1]" {
		t.Fatalf("pins %s: want every on task s's new revision, uu as it was", p)
	}
	requireFileUnchanged(t, f, strings.Replace(strings.Replace(editBase, "echo before", "echo after", 1), "timeout: 90s", "timeout: 2m", 1))
}

// testAnEditedScheduleChangesOnlyItsTrigger: the Edit schedule form's
// file changes the trigger's cron and zone and nothing else of it (its
// misfire, jitter, overlap as they were); its task, which the file names
// as a trigger's task must be named, applies as unchanged.
func testAnEditedScheduleChangesOnlyItsTrigger(t *testing.T, f Fixture) {
	applyFile(t, f, parse(t, "base.yaml", []byte(editBase)))
	e, err := apply.ScheduleToEdit(t.Context(), f.Definitions, "edit", "every")
	if err != nil || e.Cron != "* * * * *" || e.Timezone != "UTC" || e.Task != "s" || e.Revision != 1 {
		t.Fatalf("the form shows %+v, %v; want trigger every's cron and zone at revision 1", e, err)
	}
	e.Cron, e.Timezone = "30 6 * * 1-5", "Asia/Shanghai"
	text, expect, err := apply.EditScheduleFile(t.Context(), f.Definitions, e)
	if err != nil || fmt.Sprint(expect) != "[trigger every 1 task s 1]" {
		t.Fatalf("the form's file: %v, written from %v; want it written from trigger every and task s, each at revision 1", err, expect)
	}
	got := results(applyFile(t, f, parse(t, "edit.yaml", text)))
	if w := "project edit: unchanged []; task s: unchanged []; trigger every: updated [cron.expression cron.timezone]"; got != w {
		t.Fatalf("applying the form's file: %s\nwant %s\n%s", got, w, text)
	}
	requireFileUnchanged(t, f, strings.Replace(editBase, `{name: every, task: s, cron: "* * * * *", timezone: UTC`, `{name: every, task: s, cron: "30 6 * * 1-5", timezone: Asia/Shanghai`, 1))
}

// testAnEditOfAnEntryChangedSinceItsFormIsRefused: a form sent after
// someone else published its task or trigger is refused, naming both
// revisions, rather than written over that change.
func testAnEditOfAnEntryChangedSinceItsFormIsRefused(t *testing.T, f Fixture) {
	applyFile(t, f, parse(t, "base.yaml", []byte(editBase)))
	task, err := apply.TaskToEdit(t.Context(), f.Definitions, "edit", "s")
	if err != nil {
		t.Fatal(err)
	}
	sched, err := apply.ScheduleToEdit(t.Context(), f.Definitions, "edit", "every")
	if err != nil {
		t.Fatal(err)
	}
	// Another user's change: task s's new script, which trigger every
	// follows (its revision 2).
	applyFile(t, f, parse(t, "other.yaml", []byte(strings.Replace(editBase, "echo before", "echo theirs", 1))))
	task.Script = "echo mine"
	if _, _, err := apply.EditTaskFile(t.Context(), f.Definitions, task); qlerror.ReasonOf(err) != apply.RefusalChangedSince ||
		qlerror.ParamsOf(err)["shown"] != "1" || qlerror.ParamsOf(err)["current"] != "2" {
		t.Errorf("an edit of task s shown at revision 1, now 2: %v (%v), want %s", err, qlerror.ParamsOf(err), apply.RefusalChangedSince)
	}
	sched.Cron = "0 0 * * *"
	if _, _, err := apply.EditScheduleFile(t.Context(), f.Definitions, sched); qlerror.ReasonOf(err) != apply.RefusalChangedSince {
		t.Errorf("an edit of trigger every shown at revision 1, now 2: %v, want %s", err, apply.RefusalChangedSince)
	}
	if cur, err := apply.TaskToEdit(t.Context(), f.Definitions, "edit", "s"); err != nil || cur.Script != "echo theirs\n" {
		t.Errorf("task s after the refused edit: %+v, %v; want the other user's script", cur, err)
	}
}

// testAnEditFilesApplyRefusesAnEntryChangedSinceItWasWritten: a file an
// edit form wrote, previewed and then confirmed after someone published
// its task, or the task of its trigger, publishes nothing: the apply reads
// the revisions the file was written from in its own transaction.
func testAnEditFilesApplyRefusesAnEntryChangedSinceItWasWritten(t *testing.T, f Fixture) {
	applyFile(t, f, parse(t, "base.yaml", []byte(editBase)))
	taskFile, taskExpect := editedTaskFile(t, f, "edit", "s", func(e *apply.EditTask) { e.Script = "echo mine" })
	schedFile, schedExpect := editedScheduleFile(t, f, "edit", "uu", func(e *apply.EditSchedule) { e.Cron = "0 0 * * *" })
	// Other users' changes between the previews and their confirmations:
	// task s's script, which trigger every follows, and task u disabled,
	// which leaves its enabled trigger uu as it was, while the schedule's
	// file holds task u enabled.
	applyFile(t, f, parse(t, "s.yaml", []byte("project: edit\ntasks:\n  - {name: s, script: echo theirs}\n")))
	applyFile(t, f, parse(t, "u.yaml", []byte("project: edit\ntasks:\n  - {name: u, command: [/bin/echo, u], enabled: false}\n")))
	for _, c := range []struct {
		what   string
		text   []byte
		expect []apply.Expected
		want   string
	}{
		{"the task's file", taskFile, taskExpect, "task s 1, now 2"},
		{"the schedule's file", schedFile, schedExpect, "task u 1, now 2"},
	} {
		doc := parse(t, "edit.yaml", c.text)
		doc.Expect = c.expect
		_, err := apply.Apply(t.Context(), f.Service, doc, ids.New)
		p := qlerror.ParamsOf(err)
		if qlerror.ReasonOf(err) != apply.RefusalChangedSince || fmt.Sprintf("%s %s %s, now %s", p["kind"], p["name"], p["shown"], p["current"]) != c.want {
			t.Errorf("%s confirmed after the other change: %v (%v), want %s (%s)", c.what, err, p, apply.RefusalChangedSince, c.want)
		}
	}
	if p := pinsOf(t, f, "edit"); fmt.Sprint(p) != "map[every:r2 pins 2 of 2 uu:r1 pins 1 of 2]" {
		t.Errorf("pins %v after the refused files: want the other changes' alone", p)
	}
	if cur, err := apply.TaskToEdit(t.Context(), f.Definitions, "edit", "s"); err != nil || cur.Script != "echo theirs" || cur.Revision != 2 {
		t.Errorf("task s after the refused files: %+v, %v; want the other user's script", cur, err)
	}
	for _, s := range []string{"task s 1", "trigger every 12", "project edit 7"} {
		if e, ok := apply.ParseExpected(s); !ok || e.String() != s {
			t.Errorf("ParseExpected(%q) = %v, %v; want it read back", s, e, ok)
		}
	}
	for _, s := range []string{"task s", "token p 1", "task s 0", "task s x", "task s 1 2"} {
		if e, ok := apply.ParseExpected(s); ok {
			t.Errorf("ParseExpected(%q) = %v, want it refused", s, e)
		}
	}
}

// testWhatAnEditFormCannotShowIsRefused: a task that runs a command, a
// script a text box would not give back as it is, a trigger left on an
// older revision of its task (its file would move it) and an entry the
// project lacks are each refused with their reason, not shown to edit.
func testWhatAnEditFormCannotShowIsRefused(t *testing.T, f Fixture) {
	applyFile(t, f, parse(t, "base.yaml", []byte(strings.Replace(editBase, "  - {name: u,", "  - {name: cr, script: \"echo a\\r\\n\"}\n  - {name: crenv, script: echo, env: {A: \"x\\ry\"}}\n  - {name: u,", 1))))
	ctx := t.Context()
	for _, c := range []struct {
		what string
		err  error
		want qlerror.Reason
	}{
		{"an argv task", second(apply.TaskToEdit(ctx, f.Definitions, "edit", "u")), apply.RefusalArgvTask},
		{"a script with a carriage return", second(apply.TaskToEdit(ctx, f.Definitions, "edit", "cr")), apply.RefusalScriptNotShown},
		{"an env value with a carriage return", second(apply.TaskToEdit(ctx, f.Definitions, "edit", "crenv")), apply.RefusalEnvNotShown},
		{"a task the project lacks", second(apply.TaskToEdit(ctx, f.Definitions, "edit", "gone")), apply.RefusalNoSuchEntry},
		{"a trigger the project lacks", second(apply.ScheduleToEdit(ctx, f.Definitions, "edit", "gone")), apply.RefusalNoSuchEntry},
		{"a project none has", second(apply.TaskToEdit(ctx, f.Definitions, "none", "s")), catalog.RefusalProjectMissing},
		{"an edit sent for an argv task", third(apply.EditTaskFile(ctx, f.Definitions, apply.EditTask{Project: "edit", Task: "u", Revision: 1, Script: "x"})), apply.RefusalArgvTask},
	} {
		if got := qlerror.ReasonOf(c.err); got != c.want {
			t.Errorf("%s: %v (%s), want %s", c.what, c.err, got, c.want)
		}
	}
	// Disabling task s leaves its enabled trigger every on the revision
	// before, which a file naming s would move.
	applyFile(t, f, parse(t, "off.yaml", []byte("project: edit\ntasks:\n  - {name: s, script: echo, enabled: false}\n")))
	if p := pinsOf(t, f, "edit")["every"]; p != "r1 pins 1 of 2" {
		t.Fatalf("trigger every %s, want it left on task s's revision 1", p)
	}
	if _, err := apply.ScheduleToEdit(ctx, f.Definitions, "edit", "every"); qlerror.ReasonOf(err) != apply.RefusalPinsOlderTask {
		t.Errorf("a trigger on an older revision of its task: %v, want %s", err, apply.RefusalPinsOlderTask)
	}
	if _, _, err := apply.EditScheduleFile(ctx, f.Definitions, apply.EditSchedule{Project: "edit", Trigger: "every", Revision: 1, Cron: "0 0 * * *", Timezone: "UTC"}); qlerror.ReasonOf(err) != apply.RefusalPinsOlderTask {
		t.Errorf("an edit sent for a trigger on an older revision of its task: %v, want %s", err, apply.RefusalPinsOlderTask)
	}
}

// second is the error of a call that also returns a value.
func second[T any](_ T, err error) error { return err }

// third is the error of a call that also returns two values.
func third[T, U any](_ T, _ U, err error) error { return err }

// pinsOf reads project name's triggers as name → "trigger revision /
// pinned task revision of current task revision".
func pinsOf(t *testing.T, f Fixture, name string) map[string]string {
	t.Helper()
	d, err := f.Definitions.ProjectDefinitions(t.Context(), name, 10)
	if err != nil {
		t.Fatal(err)
	}
	current := map[string]int64{}
	for _, k := range d.Tasks {
		current[k.TaskID] = k.Revision
	}
	out := map[string]string{}
	for _, tr := range d.Triggers {
		out[tr.Spec.Name] = fmt.Sprintf("r%d pins %d of %d", tr.Revision, tr.TaskRevision, current[tr.TaskID])
	}
	return out
}

// requireFileUnchanged applies text and fails unless every object of it
// is unchanged: the store holds what text says.
func requireFileUnchanged(t *testing.T, f Fixture, text string) {
	t.Helper()
	for _, r := range applyFile(t, f, parse(t, "want.yaml", []byte(text))) {
		if r.Change != catalog.Unchanged {
			t.Errorf("%s %s: %s %v, want unchanged: the store differs from\n%s", r.Kind, r.Name, r.Change, r.Fields, text)
		}
	}
}

// testTheConsolesFormsKeepTheTitles: the files the Edit task, Edit
// schedule and New task forms write carry the display titles of the
// project, task and trigger they name, so applying one changes no title
// (a file leaving a title out clears it); the Edit task form shows the
// task's.
func testTheConsolesFormsKeepTheTitles(t *testing.T, f Fixture) {
	titled := strings.NewReplacer("project: edit\n", "project: edit\ntitle: 编辑 商城\n",
		"  - name: s\n", "  - name: s\n    title: 每日签到\n",
		"{name: every, task: s,", "{name: every, title: 每分钟 签到, task: s,").Replace(editBase)
	applyFile(t, f, parse(t, "base.yaml", []byte(titled)))
	want := catalog.Titles{Tasks: map[string]string{"s": "每日签到"}, Triggers: map[string]string{"every": "每分钟 签到"}}
	check := func(form string) {
		t.Helper()
		d, err := f.Definitions.ProjectDefinitions(t.Context(), "edit", 10)
		if err != nil || d.Project.Title != "编辑 商城" || fmt.Sprint(d.Titles) != fmt.Sprint(want) {
			t.Fatalf("after the %s form's file: project title %q, titles %v, %v; want 编辑 商城 and %v as they were", form, d.Project.Title, d.Titles, err, want)
		}
	}
	text, _ := editedTaskFile(t, f, "edit", "s", func(e *apply.EditTask) {
		if e.Title != "每日签到" {
			t.Fatalf("the Edit task form shows %+v; want the task's title 每日签到", e)
		}
		e.Script = "echo after\n"
	})
	applyFile(t, f, parse(t, "edit.yaml", text))
	check("Edit task")
	text, _ = editedScheduleFile(t, f, "edit", "every", func(e *apply.EditSchedule) { e.Cron = "30 6 * * 1-5" })
	applyFile(t, f, parse(t, "edit.yaml", text))
	check("Edit schedule")
	text, err := apply.NewTaskFile(t.Context(), f.Definitions, apply.NewTask{Project: "edit", Task: "fresh", Script: "true\n", Cron: "0 4 * * *", Timezone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	applyFile(t, f, parse(t, "new.yaml", text))
	check("New task")
}

// editedTaskFile is the file the Edit task form writes for the task of
// project as edit changes the form it shows, and the revisions it is
// written from.
func editedTaskFile(t *testing.T, f Fixture, project, task string, edit func(*apply.EditTask)) ([]byte, []apply.Expected) {
	t.Helper()
	e, err := apply.TaskToEdit(t.Context(), f.Definitions, project, task)
	if err != nil {
		t.Fatal(err)
	}
	edit(&e)
	text, expect, err := apply.EditTaskFile(t.Context(), f.Definitions, e)
	if err != nil {
		t.Fatal(err)
	}
	return text, expect
}

// editedScheduleFile is editedTaskFile for the Edit schedule form of a
// trigger.
func editedScheduleFile(t *testing.T, f Fixture, project, trigger string, edit func(*apply.EditSchedule)) ([]byte, []apply.Expected) {
	t.Helper()
	e, err := apply.ScheduleToEdit(t.Context(), f.Definitions, project, trigger)
	if err != nil {
		t.Fatal(err)
	}
	edit(&e)
	text, expect, err := apply.EditScheduleFile(t.Context(), f.Definitions, e)
	if err != nil {
		t.Fatal(err)
	}
	return text, expect
}
