package singlecli

import (
	"strings"
	"testing"
)

// envDefs is project shop with the env lines given and one task.
func envDefs(env string) string {
	return "project: shop\nenv:\n" + env + "tasks:\n  - {name: job, script: 'echo \"$REGION\"'}\n"
}

// `projects show` prints a project's env, a secret by its name; a dry
// run of a changed env says which variables it adds, changes and
// removes; `export` writes the env back so that applying the export
// changes nothing.
func TestProjectsShowDryRunAndExportSayTheProjectsEnv(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, envDefs("  B: one\n  C: {secret: shop/c-token}\n"))
	code, out, errOut := ql(t, "projects", "show", "shop", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "env       B=one\n") || !strings.Contains(out, "env       C (secret shop/c-token)\n") {
		t.Fatalf("projects show shop: exit %d %q %q; want its env, the secret by name", code, out, errOut)
	}
	next := writeFile(t, dir, "next.yaml", envDefs("  A: \"8080\"\n  B: two\n"))
	if code, out, errOut := ql(t, "apply", "-f", next, "--dry-run", "--data-dir", dir); code != 0 || !strings.Contains(out, "project shop: would update env (+A, ~B, -C)\n") {
		t.Fatalf("apply --dry-run: exit %d %q %q; want the env's change by name", code, out, errOut)
	}
	code, out, errOut = ql(t, "export", "shop", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "env:\n  B: one\n  C:\n    secret: shop/c-token\n") {
		t.Fatalf("export shop: exit %d %q %q; want the project's env", code, out, errOut)
	}
	if code, res, errOut := ql(t, "apply", "-f", writeFile(t, dir, "export.yaml", out), "--data-dir", dir); code != 0 || res != "1 project and 1 task unchanged\n" {
		t.Fatalf("applying the export: exit %d %q %q; want the project unchanged", code, res, errOut)
	}
}
