package singlecli

import (
	"strings"
	"testing"
)

// sharedFile is a project one team published: task job, trigger nightly.
const sharedFile = "project: shared\ntitle: 共享\ntasks:\n  - {name: job, script: 'true'}\ntriggers:\n" +
	"  - {name: nightly, task: job, cron: '0 3 * * *', timezone: UTC}\n"

// addedFile is another team's file for the same project: the same task
// as it is, and a trigger of its own.
const addedFile = "project: shared\ntitle: 共享\ntasks:\n  - {name: job, script: 'true'}\ntriggers:\n" +
	"  - {name: hourly, task: job, cron: '0 * * * *', timezone: UTC}\n"

// changingFile would change the task and the trigger the first team
// publishes (and so carry the other team's trigger to the new task),
// clear the project's title, and add a trigger.
const changingFile = "project: shared\ntasks:\n  - {name: job, script: 'echo changed'}\ntriggers:\n" +
	"  - {name: nightly, task: job, cron: '0 4 * * *', timezone: UTC}\n" +
	"  - {name: extra, task: job, cron: '0 5 * * *', timezone: UTC}\n"

// `apply --create-only` creates what does not exist and leaves what is
// the same unchanged; a file that would change anything that exists is
// refused (exit 4, create_only_would_change) naming each object and how,
// nothing applied, its dry run too.
func TestACreateOnlyApplyCreatesWhatIsNewAndRefusesAChangeNamingIt(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, sharedFile)
	code, out, errOut := ql(t, "apply", "--create-only", "-f", writeFile(t, dir, "added.yaml", addedFile), "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "trigger hourly: created") || !strings.Contains(out, "1 project and 1 task unchanged") {
		t.Fatalf("apply --create-only of a new trigger: %d %q %q; want it created, the rest unchanged", code, out, errOut)
	}
	changing := writeFile(t, dir, "changing.yaml", changingFile)
	for _, args := range [][]string{{"apply", "--create-only"}, {"apply", "--create-only", "--dry-run"}} {
		code, out, errOut = ql(t, append(args, "-f", changing, "--data-dir", dir)...)
		if code != 4 || !strings.Contains(errOut, "the file would change 4 objects of project shared that exist: project shared (title); task job (command.script); "+
			"trigger nightly (cron.expression, taskRevision); trigger hourly (taskRevision)") ||
			!strings.Contains(errOut, "--create-only") || strings.Contains(out, "created") {
			t.Fatalf("%v of a changing file: %d %q %q; want exit 4 naming the project's title, task job, trigger nightly and trigger hourly, which follows job", args, code, out, errOut)
		}
	}
	code, out, errOut = ql(t, "apply", "--create-only", "-o", "json", "-f", changing, "--data-dir", dir)
	if code != 4 || !strings.Contains(errOut, `"reason":"create_only_would_change"`) {
		t.Fatalf("apply --create-only -o json: %d %q %q; want the reason create_only_would_change", code, out, errOut)
	}
	code, out, errOut = ql(t, "triggers", "list", "--data-dir", dir)
	if code != 0 || strings.Contains(out, "extra") || !strings.Contains(out, "0 3 * * *") {
		t.Fatalf("triggers list after the refusals: %d %q %q; want no trigger extra and nightly unchanged", code, out, errOut)
	}
	if code, _, errOut := ql(t, "apply", "--create-only", "-f", writeFile(t, dir, "added.yaml", addedFile), "--data-dir", dir); code != 0 {
		t.Fatalf("the same create-only file again: %d %q; want it unchanged, not refused", code, errOut)
	}
}

// Over the API (?createOnly=true, `apply --create-only --api-url`) an
// apply only creates too, its refusal naming what would change.
func TestACreateOnlyApplyOverTheAPIRefusesAChangeNamingIt(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, sharedFile)
	t.Setenv("QL_TOKEN", newToken(t, dir, "team", "admin"))
	base := serveAPI(t, dir, "standalone")
	if got := overAPI(t, base, "apply", "--create-only", "-f", writeFile(t, dir, "added.yaml", addedFile)); got.code != 0 || !strings.Contains(got.out, "trigger hourly: created") {
		t.Fatalf("apply --create-only --api-url of a new trigger: %d %q %q; want it created", got.code, got.out, got.err)
	}
	changing := writeFile(t, dir, "changing.yaml", changingFile)
	for _, args := range [][]string{{"apply", "--create-only"}, {"apply", "--create-only", "--dry-run"}} {
		got := overAPI(t, base, append(args, "-f", changing)...)
		if got.code != 4 || !strings.Contains(got.err, "task job (command.script); trigger nightly (") {
			t.Fatalf("%v --api-url of a changing file: %d %q %q; want exit 4 naming task job and trigger nightly", args, got.code, got.out, got.err)
		}
	}
}
