package singlecli

import (
	"strings"
	"testing"
)

// ql triggers resume and ql projects resume take --note, as their pauses
// do: the note is kept with the resume's audit record (each resumed
// trigger's, for a project), which triggers show prints; a note longer
// than a pause's is refused before anything changes.
func TestAResumeOfATriggerOrAProjectKeepsItsNote(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	resumed := func(want string) {
		t.Helper()
		d := showJSON(t, dir, "yearly")
		if len(d.Audit) == 0 || d.Audit[0].Action != "resume" || d.Audit[0].Note != want || d.Trigger.Paused {
			t.Fatalf("after the resume: paused %t, audit %+v; want it resumed, its newest record the resume with the note %q", d.Trigger.Paused, d.Audit, want)
		}
	}
	for _, step := range [][]string{
		{"triggers", "pause", "yearly", "--note", "db upgrade"},
		{"triggers", "resume", "yearly", "--note", "db back up"},
	} {
		if code, _, errOut := ql(t, append(step, "--data-dir", dir)...); code != 0 {
			t.Fatalf("%v: %d %q", step, code, errOut)
		}
	}
	resumed("db back up")
	if code, _, errOut := ql(t, "projects", "pause", "api", "--note", "freeze", "--data-dir", dir); code != 0 {
		t.Fatalf("projects pause: %d %q", code, errOut)
	}
	if code, _, errOut := ql(t, "projects", "resume", "api", "--note", strings.Repeat("n", 1001), "--data-dir", dir); code != 2 || !strings.Contains(errOut, "--note is 1001 characters; at most 1000") {
		t.Fatalf("projects resume with a note too long: %d %q; want exit 2 saying so", code, errOut)
	}
	if code, _, errOut := ql(t, "projects", "resume", "api", "--note", "release shipped", "--data-dir", dir); code != 0 {
		t.Fatalf("projects resume: %d %q", code, errOut)
	}
	resumed("release shipped")
}
