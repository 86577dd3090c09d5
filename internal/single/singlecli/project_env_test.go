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

// An apply over the API that changes a project's env records it in the
// audit trail by the variables' names, never their values. Not parallel:
// it sets $QL_TOKEN.
func TestAnAuditedApplyRecordsAProjectEnvChangeByNameOnly(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, envDefs("  B: one\n  C: gone\n"))
	admin := newToken(t, dir, "admin", "admin")
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", admin)
	next := writeFile(t, dir, "next.yaml", envDefs("  A: first-value\n  B: second-value\n"))
	if code, out, errOut := ql(t, "apply", "-f", next, "--api-url", base); code != 0 {
		t.Fatalf("apply --api-url: exit %d %q %q", code, out, errOut)
	}
	var summary string
	if err := readOnlyDB(t, dir).QueryRow(`SELECT summary FROM publish_audit`).Scan(&summary); err != nil {
		t.Fatal(err)
	}
	if summary != "updated project shop (env (+A, ~B, -C))" {
		t.Fatalf("the audit trail records %q; want the env's change by name", summary)
	}
}
