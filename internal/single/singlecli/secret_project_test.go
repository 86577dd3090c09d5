package singlecli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
)

// An apply of project alpha naming beta's secret, from a task's env or a
// notification channel, is refused naming the secret, its project and
// what to do, writing nothing; alpha's own secret and a global one apply.
func TestAnApplyNamingAnotherProjectsSecretIsRefusedAndItsOwnAndGlobalOnesApply(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	for _, defs := range []string{
		"project: alpha\ntasks:\n  - {name: job, script: \"true\", env: {TOKEN: {secret: beta/token}}}\n",
		"project: alpha\nnotifications:\n  channels:\n    hook: {type: webhook, url: \"https://hooks.example.com/q\", signingSecret: beta/hook-key}\n" +
			"  rules:\n    - {on: failed, channel: hook}\ntasks:\n  - {name: job, script: \"true\"}\n",
	} {
		code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "alpha.yaml", defs), "--data-dir", dir)
		if code != 2 || !strings.Contains(errOut, `secret "beta/token" belongs to project beta`) && !strings.Contains(errOut, `secret "beta/hook-key" belongs to project beta`) ||
			!strings.Contains(errOut, "set a secret of project alpha's own (alpha/NAME) or a global one") {
			t.Fatalf("apply naming beta's secret from alpha: %d %q %q; want exit 2 naming the secret, its project and the fix", code, out, errOut)
		}
	}
	if code, out, errOut := ql(t, "projects", "show", "alpha", "--data-dir", dir); code != 1 {
		t.Fatalf("projects show alpha after the refusals: %d %q %q; want it not found: nothing written", code, out, errOut)
	}
	applyDefs(t, dir, "project: alpha\ntasks:\n  - {name: job, script: \"true\", env: {OWN: {secret: alpha/token}, SHARED: {secret: token}}}\n")
}

// `secrets set` of a PROJECT/NAME says only that project may read it, and
// `secrets list` (table and JSON) says whose each secret is.
func TestSecretsSetAndListSayWhichProjectMayReadEachSecret(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	code, out, errOut := qlStdin(t, "value-of-alpha\n", "secrets", "set", "alpha/token", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "secret alpha/token: created\nreadable by: project alpha only") {
		t.Fatalf("secrets set alpha/token: %d %q %q; want it created, readable by project alpha only", code, out, errOut)
	}
	if code, _, errOut := qlStdin(t, "shared-value\n", "secrets", "set", "token", "--data-dir", dir); code != 0 {
		t.Fatalf("secrets set token: %d %q", code, errOut)
	}
	code, out, errOut = ql(t, "secrets", "list", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "READABLE BY") || !hasRow(out, "alpha/token", "project alpha") || !hasRow(out, "token", "every project") {
		t.Fatalf("secrets list: %d %q %q; want alpha/token readable by project alpha and token by every project", code, out, errOut)
	}
	code, out, _ = ql(t, "secrets", "list", "--data-dir", dir, "-o", "json")
	var l apply.SecretListing
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || len(l.Secrets) != 2 {
		t.Fatalf("secrets list -o json: %d %q", code, out)
	}
	for _, e := range l.Secrets {
		if want := map[string]string{"alpha/token": "alpha", "token": ""}[e.Name]; e.Project != want {
			t.Fatalf("secrets list -o json: %s has project %q, want %q", e.Name, e.Project, want)
		}
	}
}

// hasRow reports whether a line of table out starts with name and says
// readable.
func hasRow(out, name, readable string) bool {
	for line := range strings.SplitSeq(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == name && strings.Contains(line, readable) {
			return true
		}
	}
	return false
}
