package singlecli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/single/server"
)

func projectFile(project string, triggers ...string) string {
	var b strings.Builder
	b.WriteString("project: " + project + "\ntasks:\n  - name: job\n    script: echo hi\ntriggers:\n")
	for _, t := range triggers {
		b.WriteString("  - {name: " + t + `, task: job, cron: "* * * * * *", timezone: UTC}` + "\n")
	}
	return b.String()
}

type listedRun struct{ ID, ProjectID, ProjectName, TriggerID, TriggerName string }

// --project and --trigger take names as well as ids, and an unknown or
// ambiguous name is an error naming it rather than an empty list.
func TestRunFiltersTakeNames(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	db := filepath.Join(dir, "qinglong.db")
	for name, doc := range map[string]string{"alpha": projectFile("alpha", "tick"), "beta": projectFile("beta", "tick", "tock")} {
		if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, name+".yaml", doc), "--data-dir", dir); code != 0 {
			t.Fatalf("apply %s: %d %q %q", name, code, out, errOut)
		}
	}
	b, err := server.OpenBackend(t.Context(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	for admitted, deadline := 0, time.Now().Add(30*time.Second); admitted < 3; {
		if time.Now().After(deadline) {
			t.Fatalf("%d runs admitted in 30s; want one per trigger", admitted)
		}
		sum, err := schedule.Round(t.Context(), b.Store, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill})
		if err != nil {
			t.Fatal(err)
		}
		admitted += sum.Counts[schedule.Admitted]
		time.Sleep(200 * time.Millisecond)
	}
	b.Close()

	list := func(args ...string) []listedRun {
		t.Helper()
		code, out, errOut := ql(t, append([]string{"runs", "list", "--data-dir", dir, "-o", "json"}, args...)...)
		var page struct{ Runs []listedRun }
		if code != 0 || json.Unmarshal([]byte(out), &page) != nil || len(page.Runs) == 0 {
			t.Fatalf("runs list %v: exit %d %q %q", args, code, out, errOut)
		}
		return page.Runs
	}
	only := func(runs []listedRun, project, trigger string) {
		t.Helper()
		for _, r := range runs {
			if r.ProjectName != project || (trigger != "" && r.TriggerName != trigger) {
				t.Fatalf("run %+v listed; want only %s/%s", r, project, trigger)
			}
		}
	}
	alpha := list("--project", "alpha")
	only(alpha, "alpha", "")
	if byID := list("--project", alpha[0].ProjectID); len(byID) != len(alpha) {
		t.Fatalf("--project by id lists %d runs, by name %d", len(byID), len(alpha))
	}
	only(list("--trigger", "beta/tock"), "beta", "tock")
	only(list("--project", "beta", "--trigger", "tick"), "beta", "tick")
	only(list("--trigger", "tock"), "beta", "tock")
	tick := list("--trigger", "alpha/tick")
	only(tick, "alpha", "tick")
	only(list("--trigger", tick[0].TriggerID), "alpha", "tick")

	for _, c := range []struct {
		args    []string
		code    int
		mention string
	}{
		{[]string{"--project", "gamma"}, 1, `project "gamma" does not exist; the projects are alpha, beta`},
		{[]string{"--trigger", "alpha/tock"}, 1, `no trigger named "tock" in project alpha`},
		{[]string{"--trigger", "nope"}, 1, `no trigger named "nope"`},
		{[]string{"--trigger", "tick"}, 2, "alpha, beta; write project/trigger"},
		{[]string{"--project", "alpha", "--trigger", "beta/tick"}, 2, "give the project once"},
	} {
		code, _, errOut := ql(t, append([]string{"runs", "list", "--data-dir", dir}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.mention) {
			t.Errorf("runs list %v: exit %d %q; want exit %d mentioning %q", c.args, code, errOut, c.code, c.mention)
		}
	}
	code, out, errOut := ql(t, "triggers", "list", "--data-dir", dir, "--project", "beta")
	if code != 0 || !strings.Contains(out, "tock") || strings.Contains(out, "alpha") {
		t.Fatalf("triggers list --project beta: exit %d %q %q", code, out, errOut)
	}
}

// A project applied with tasks alone exists: listing its runs, triggers
// or notifications prints an empty list and exits 0, where a name no
// project has is still an error naming it.
func TestAListingOfAProjectWithNoTriggerYetIsEmptyNotAnError(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "tasks.yaml", projectFile("later")+"  []\n"), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	for _, cmd := range [][]string{{"runs", "list"}, {"triggers", "list"}, {"notifications", "list"}} {
		code, out, errOut := ql(t, append(cmd, "--data-dir", dir, "--project", "later", "-o", "json")...)
		var page map[string]json.RawMessage
		if code != 0 || errOut != "" || json.Unmarshal([]byte(out), &page) != nil {
			t.Errorf("%v --project later: exit %d %q %q; want an empty list, exit 0", cmd, code, out, errOut)
		}
		for key, items := range page {
			if strings.HasPrefix(string(items), "[") && string(items) != "[]" {
				t.Errorf("%v --project later lists %s %s; want none", cmd, key, items)
			}
		}
		code, _, errOut = ql(t, append(cmd, "--data-dir", dir, "--project", "never")...)
		if code != 1 || !strings.Contains(errOut, `project "never" does not exist; the only project is later`) {
			t.Errorf("%v --project never: exit %d %q; want exit 1 saying it does not exist, naming the project there is", cmd, code, errOut)
		}
	}
}

// A trigger argument naming another project than --project is refused in
// the words the user wrote: the argument, on commands that take the
// trigger as one, and --trigger only where there is that flag.
func TestAProjectConflictNamesTheTriggerAsGiven(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	for _, name := range []string{"alpha", "beta"} {
		if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, name+".yaml", projectFile(name, "tick")), "--data-dir", dir); code != 0 {
			t.Fatalf("apply %s: %d %q %q", name, code, out, errOut)
		}
	}
	for _, args := range [][]string{
		{"triggers", "pause", "beta/tick"}, {"triggers", "resume", "beta/tick"}, {"triggers", "show", "beta/tick"},
		{"triggers", "run", "beta/tick"}, {"triggers", "enable", "beta/tick"}, {"triggers", "disable", "beta/tick"},
		{"triggers", "backfill", "beta/tick", "--from", "2026-01-01T00:00:00Z", "--to", "2026-01-01T00:00:01Z"},
	} {
		code, _, errOut := ql(t, append(args, "--project", "alpha", "--data-dir", dir)...)
		if code == 0 || !strings.Contains(errOut, `trigger "beta/tick" names project beta, but --project "alpha" is another`) || strings.Contains(errOut, "--trigger") {
			t.Errorf("%v --project alpha: exit %d %q; want the trigger argument named as given, no --trigger", args, code, errOut)
		}
	}
	code, _, errOut := ql(t, "runs", "list", "--trigger", "beta/tick", "--project", "alpha", "--data-dir", dir)
	if code == 0 || !strings.Contains(errOut, `--trigger "beta/tick" names project beta, but --project "alpha" is another`) {
		t.Errorf("runs list --trigger beta/tick --project alpha: exit %d %q; want --trigger named", code, errOut)
	}
}

// A project name no project has is one mistake, said in one wording
// whichever command met it: an export, `projects show` and the listings'
// --project each say it does not exist and name the projects there are.
func TestAMissingProjectIsSaidInTheSameWordsByEveryCommand(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "examples.yaml", projectFile("examples", "tick")), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	const want = "ql-edge: project \"demo\" does not exist; the only project is examples\n"
	for _, cmd := range [][]string{{"export", "demo"}, {"projects", "show", "demo"}, {"runs", "list", "--project", "demo"},
		{"triggers", "list", "--project", "demo"}, {"notifications", "list", "--project", "demo"}} {
		code, _, errOut := ql(t, append(cmd, "--data-dir", dir)...)
		if code != 1 || errOut != want {
			t.Errorf("%v: exit %d %q; want exit 1 and %q", cmd, code, errOut, want)
		}
	}
}
