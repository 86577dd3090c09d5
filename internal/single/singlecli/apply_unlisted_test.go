package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
)

// unlistedFile is a project of one task and the triggers named.
func unlistedFile(triggers ...string) string {
	var b strings.Builder
	b.WriteString("project: demo\ntasks:\n  - {name: hello, script: echo hi}\ntriggers:\n")
	for _, t := range triggers {
		b.WriteString("  - {name: " + t + ", task: hello, cron: '0 0 1 1 *', timezone: UTC}\n")
	}
	return b.String()
}

// noteUnlisted is the note `ql apply` prints naming the enabled triggers
// a file leaves out, with disable the command it names to disable one.
func noteUnlisted(names, disable string) string {
	return "note: enabled triggers of this project that the file does not name keep running: leaving one out of a file does not remove it " +
		"(a renamed trigger runs under its old name too); to retire one, apply it with enabled: false or disable it with `" + disable + "` (triggers: " + names + ")\n"
}

// A trigger renamed in its file, or left out of it, keeps running under
// the name it had, so the apply says which enabled triggers of the project
// the file does not name — a dry run, an apply on the database and one
// over the API alike — and names no disabled one, which runs nothing.
// Not parallel: it sets $QL_TOKEN.
func TestApplyNotesTheEnabledTriggersOfTheProjectTheFileLeavesOut(t *testing.T) {
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, t.TempDir(), "v1.yaml", unlistedFile("daily", "hourly", "weekly")), "--data-dir", dir); code != 0 || errOut != "" {
		t.Fatalf("first apply: %d %q %q; want no note: the project is new", code, out, errOut)
	}
	if code, _, errOut := ql(t, "triggers", "disable", "demo/weekly", "--data-dir", dir); code != 0 {
		t.Fatalf("disable: %d %q", code, errOut)
	}
	renamed := writeFile(t, t.TempDir(), "v2.yaml", unlistedFile("every-day"))
	// The command to disable one is pasteable: this binary's own, reaching the
	// database or server the apply did; the API says it in ql's name.
	want := noteUnlisted("daily, hourly", "ql-edge triggers disable demo/NAME --data-dir "+dir)
	for _, args := range [][]string{{"--dry-run"}, {}} {
		code, out, errOut := ql(t, append([]string{"apply", "-f", renamed, "--data-dir", dir}, args...)...)
		if code != 0 || errOut != want {
			t.Errorf("apply %v: %d %q\nstderr %q\nwant %q", args, code, out, errOut, want)
		}
	}

	admin := newToken(t, dir, "admin", "admin")
	base := serveAPI(t, dir, "standalone")
	st, body := call(t, "POST", base+"/api/v1/apply", admin, unlistedFile("every-day"))
	notes := notesOf(t, body)
	if want := noteUnlisted("daily, hourly", "ql triggers disable NAME"); st != 200 || len(notes) != 1 || notes[0]["reason"] != "defs_note_unlisted_triggers" || "note: "+notes[0]["message"].(string)+"\n" != want {
		t.Errorf("apply over the API: %d, notes %v; want the one note %q", st, body["notes"], want)
	}
	want = noteUnlisted("daily, hourly", "ql-edge triggers disable demo/NAME --api-url "+base)
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", admin)
	if code, out, errOut := ql(t, "apply", "-f", renamed, "--api-url", base); code != 0 || errOut != want {
		t.Errorf("apply --api-url: %d %q\nstderr %q\nwant %q", code, out, errOut, want)
	}
}

// A file that changes a task and leaves one of its triggers out carries
// that trigger along to the task's new revision, so the note of the
// triggers the file leaves out says it follows the task, not only that it
// keeps running: on a dry run, which reads the plan, and on the apply
// alike; the API's note item names the task.
func TestTheNoteOfTriggersAFileLeavesOutNamesTheChangedTaskEachFollows(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, t.TempDir(), "v1.yaml", unlistedFile("daily", "hourly")), "--data-dir", dir); code != 0 || errOut != "" {
		t.Fatalf("first apply: %d %q %q", code, out, errOut)
	}
	changed := strings.Replace(unlistedFile("hourly"), "echo hi", "echo bye", 1)
	file := writeFile(t, t.TempDir(), "v2.yaml", changed)
	want := noteUnlisted("daily (follows task hello to the revision this file publishes)", "ql-edge triggers disable demo/NAME --data-dir "+dir)
	code, out, errOut := ql(t, "apply", "-f", file, "--data-dir", dir, "--dry-run")
	if code != 0 || errOut != want || !strings.Contains(out, "trigger daily: would update taskRevision (revision 2)") {
		t.Errorf("dry run: %d %q\nstderr %q\nwant %q", code, out, errOut, want)
	}
	if code, out, errOut := ql(t, "apply", "-f", file, "--data-dir", dir); code != 0 || errOut != want {
		t.Errorf("apply: %d %q\nstderr %q\nwant %q", code, out, errOut, want)
	}

	admin := newToken(t, dir, "admin", "admin")
	base := serveAPI(t, dir, "standalone")
	st, body := call(t, "POST", base+"/api/v1/apply", admin, strings.Replace(changed, "echo bye", "echo again", 1))
	notes := notesOf(t, body)
	if st != 200 || len(notes) != 1 {
		t.Fatalf("apply over the API: %d, notes %v; want the one note", st, body["notes"])
	}
	if items, _ := json.Marshal(notes[0]["items"]); string(items) != `[{"name":"daily","task":"hello"}]` {
		t.Errorf("apply over the API: %d, notes %v; want daily following task hello", st, body["notes"])
	}
}

// The command the note names to disable a trigger the file leaves out is
// pasted with a name the note lists: it names the trigger within the
// file's project, so a trigger of the same name in another project does
// not make it ambiguous and refused, and it disables that project's one.
func TestTheNotesDisableCommandPastedDisablesTheTriggerOfTheFilesProject(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	other := "project: other\ntasks:\n  - {name: hello, script: echo hi}\ntriggers:\n  - {name: daily, task: hello, cron: '0 0 1 1 *', timezone: UTC}\n"
	for _, f := range []string{other, unlistedFile("daily", "hourly")} {
		if code, out, errOut := ql(t, "apply", "-f", writeFile(t, t.TempDir(), "defs.yaml", f), "--data-dir", dir); code != 0 {
			t.Fatalf("apply: %d %q %q", code, out, errOut)
		}
	}
	code, _, errOut := ql(t, "apply", "-f", writeFile(t, t.TempDir(), "v2.yaml", unlistedFile("hourly")), "--data-dir", dir)
	_, command, found := strings.Cut(errOut, "disable it with `")
	command, _, _ = strings.Cut(command, "`")
	if code != 0 || !found {
		t.Fatalf("apply: %d, stderr %q; want the note naming the disable command", code, errOut)
	}
	args := strings.Fields(strings.Replace(command, "NAME", "daily", 1))[1:]
	if code, out, errOut := ql(t, args...); code != 0 || !strings.Contains(out, ": disabled as revision") {
		t.Fatalf("pasted %q: %d %q %q; want demo's daily disabled", command, code, out, errOut)
	}
	_, out, _ := ql(t, "triggers", "list", "--data-dir", dir, "-o", "json")
	var list struct {
		Triggers []struct {
			Project string `json:"projectName"`
			Name    string `json:"name"`
			Enabled bool   `json:"enabled"`
		} `json:"triggers"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("triggers list: %v in %q", err, out)
	}
	enabled := map[string]bool{}
	for _, tr := range list.Triggers {
		enabled[tr.Project+"/"+tr.Name] = tr.Enabled
	}
	if enabled["demo/daily"] || !enabled["other/daily"] {
		t.Errorf("after the pasted command: %v; want demo/daily disabled, other/daily enabled", enabled)
	}
}
