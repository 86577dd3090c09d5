package storetest

import (
	"fmt"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
)

// followBase is a project whose task t has an enabled and a disabled
// trigger, and whose task u has one of its own.
const followBase = `project: follow
tasks:
  - {name: t, command: [/bin/echo, one]}
  - {name: u, command: [/bin/echo, one]}
triggers:
  - {name: every, task: t, cron: "* * * * *", timezone: UTC}
  - {name: off, task: t, cron: "0 3 * * *", timezone: UTC, enabled: false}
  - {name: uu, task: u, cron: "* * * * *", timezone: UTC}
`

// pins reads the follow project's triggers as name → "trigger revision /
// pinned task revision of current task revision".
func pins(t *testing.T, f Fixture) map[string]string {
	t.Helper()
	d, err := f.Definitions.ProjectDefinitions(t.Context(), "follow", 10)
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

// testTriggersFollowTheirChangedTask: a file that changes a task and leaves
// its triggers out carries each of them, unchanged otherwise, to the task's
// new revision in the same apply, and reports it, and the note of the
// triggers it leaves out names the task each enabled one follows; a
// trigger of another task is untouched. Left on the old revision, a
// trigger is never taken again.
func testTriggersFollowTheirChangedTask(t *testing.T, f Fixture) {
	applyFile(t, f, parse(t, "base.yaml", []byte(followBase)))
	res := applyFile(t, f, parse(t, "t.yaml", []byte("project: follow\ntasks:\n  - {name: t, command: [/bin/echo, two]}\n")))
	var said []string
	for _, r := range res {
		said = append(said, r.String())
	}
	if w := "[project follow: unchanged task t: updated (revision 2) trigger every: updated (revision 2) trigger off: updated (revision 2)]"; fmt.Sprint(said) != w {
		t.Fatalf("results %v, want %s", said, w)
	}
	if got, w := fmt.Sprint(pins(t, f)), "map[every:r2 pins 2 of 2 off:r2 pins 2 of 2 uu:r1 pins 1 of 1]"; got != w {
		t.Fatalf("pins %s, want %s", got, w)
	}
	if ex := export(t, f, "follow"); len(ex.Notes) != 0 {
		t.Fatalf("the export notes %v: a trigger is left on an older task revision", ex.Notes)
	}
	n, ok, err := apply.UnlistedNote(t.Context(), f.Definitions, parse(t, "t.yaml", []byte("project: follow\ntasks:\n  - {name: t, command: [/bin/echo, two]}\n")), res)
	if err != nil || !ok || fmt.Sprint(n.Items) != "[map[name:every task:t] map[name:uu]]" {
		t.Fatalf("unlisted note %+v %v %v: want every, following task t, and uu", n, ok, err)
	}
}

// testAnEnabledTriggerStopsWithTheTaskAFileDisables: a file that disables a
// task leaves its enabled triggers on the revision before (an enabled
// trigger may not pin a disabled task), so they stop with it, and the note
// of the triggers a file leaves out does not say they keep running; a
// disabled trigger of it follows.
func testAnEnabledTriggerStopsWithTheTaskAFileDisables(t *testing.T, f Fixture) {
	applyFile(t, f, parse(t, "base.yaml", []byte(followBase)))
	doc := parse(t, "t.yaml", []byte("project: follow\ntasks:\n  - {name: t, command: [/bin/echo, one], enabled: false}\n"))
	applied := applyFile(t, f, doc)
	if got, w := fmt.Sprint(pins(t, f)), "map[every:r1 pins 1 of 2 off:r2 pins 2 of 2 uu:r1 pins 1 of 1]"; got != w {
		t.Fatalf("pins %s, want %s", got, w)
	}
	n, ok, err := apply.UnlistedNote(t.Context(), f.Definitions, doc, applied)
	if err != nil || !ok || fmt.Sprint(n.Items) != "[map[name:uu]]" {
		t.Fatalf("unlisted note %+v %v %v: want only uu, which keeps running", n, ok, err)
	}
}
