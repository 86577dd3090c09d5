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
