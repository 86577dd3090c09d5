package singlecli

import (
	"strings"
	"testing"
)

// A token bound to, or a secret set in the namespace of, a project no
// project is named yet is made all the same (the project may be applied
// later) with a warning on stderr naming the projects there are, which
// -o json carries in warnings; one of an existing project is not warned
// of.
func TestATokenOrSecretOfAProjectNotYetAppliedIsWarnedOfNamingTheProjects(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, strings.Replace(quietFile, "project: api\n", "project: alpha\n", 1))
	const there = `project "alpah" does not exist; the only project is alpha; `
	code, _, errOut := ql(t, "tokens", "create", "typo", "--scope", "read", "--project", "alpah", "--data-dir", dir)
	if code != 0 || !strings.Contains(errOut, "warning: "+there+"the token is bound to it all the same") {
		t.Errorf("tokens create --project alpah: %d %q; want it made with a warning naming alpha", code, errOut)
	}
	code, out, errOut := ql(t, "tokens", "create", "typo2", "--scope", "read", "--project", "alpah", "--project", "alpha", "-o", "json", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, `"warnings": [`+"\n"+`    "`+strings.ReplaceAll(there, `"`, `\"`)) || strings.Count(out, "does not exist") != 1 {
		t.Errorf("tokens create -o json: %d %q %q; want one warning, of alpah", code, out, errOut)
	}
	if code, out, errOut := ql(t, "tokens", "create", "good", "--scope", "read", "--project", "alpha", "-o", "json", "--data-dir", dir); code != 0 || strings.Contains(out+errOut, "warning") {
		t.Errorf("tokens create --project alpha: %d %q %q; want no warning", code, out, errOut)
	}
	code, _, errOut = qlStdin(t, "some-value\n", "secrets", "set", "zeta/new", "--data-dir", dir)
	if code != 0 || !strings.Contains(errOut, `warning: project "zeta" does not exist; the only project is alpha; the secret is set all the same`) {
		t.Errorf("secrets set zeta/new: %d %q; want it set with a warning naming alpha", code, errOut)
	}
	if code, _, errOut := qlStdin(t, "some-value\n", "secrets", "set", "alpha/new", "--data-dir", dir); code != 0 || strings.Contains(errOut, "warning") {
		t.Errorf("secrets set alpha/new: %d %q; want no warning", code, errOut)
	}
}

// A console user bound to a project no project is named yet is made (or
// rebound) all the same, with the warning a token gets, naming the
// projects there are: a typo would otherwise leave the user a console with
// nothing in it and nothing saying why; one of an existing project is not
// warned of.
func TestAUserBoundToAProjectNotYetAppliedIsWarnedOfNamingTheProjects(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, strings.Replace(quietFile, "project: api\n", "project: alpha\n", 1))
	const warning = `warning: project "alpah" does not exist; the only project is alpha; the user is bound to it all the same`
	const pw = "correct horse battery"
	code, out, errOut := qlIn(t, pw+"\n", "users", "create", "typo", "--role", "operator", "--project", "alpah", "--password-stdin", "--data-dir", dir)
	if code != 0 || !strings.Contains(errOut, warning) || strings.Contains(out, "warning") {
		t.Errorf("users create --project alpah: %d %q %q; want it made with a warning on stderr naming alpha", code, out, errOut)
	}
	if code, out, errOut := qlIn(t, pw+"\n", "users", "create", "good", "--role", "viewer", "--project", "alpha", "--password-stdin", "--data-dir", dir); code != 0 || strings.Contains(out+errOut, "warning") {
		t.Errorf("users create --project alpha: %d %q %q; want no warning", code, out, errOut)
	}
	if code, _, errOut := ql(t, "users", "set-projects", "good", "--project", "alpha", "--project", "alpah", "--data-dir", dir); code != 0 || strings.Count(errOut, "does not exist") != 1 || !strings.Contains(errOut, warning) {
		t.Errorf("users set-projects --project alpha --project alpah: %d %q; want one warning, of alpah", code, errOut)
	}
}
