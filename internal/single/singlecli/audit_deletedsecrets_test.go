package singlecli

import (
	"strings"
	"testing"
)

// A project's deletion records, after its own record, a secret.deleted
// for each PROJECT/NAME secret it removed from the secrets file, by name
// (never the value) and as the deletion's actor, as `ql secrets delete`
// records one; a secret of another namespace is neither removed nor
// recorded.
func TestAProjectsDeletionRecordsEachSecretItRemovedByName(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	const value = "s3cret-value-Qp8"
	for _, name := range []string{"api/token", "api/webhook", "shared"} {
		if code, _, errOut := qlStdin(t, value, "secrets", "set", name, "--data-dir", dir); code != 0 {
			t.Fatalf("secrets set %s: %d %q", name, code, errOut)
		}
	}
	applyDefs(t, dir, archivedFile)
	if code, out, errOut := ql(t, "projects", "delete", "api", "--yes", "--data-dir", dir); code != 0 || !strings.Contains(out, "api/token, api/webhook") {
		t.Fatalf("delete --yes: %d %q %q; want both secrets removed", code, out, errOut)
	}
	me := osUser(t)
	got := auditTrail(t, dir, "--action", "secret.deleted")
	want := []string{"secret.deleted " + me + " api/token api ", "secret.deleted " + me + " api/webhook api "}
	if strings.Join(got, "\n") != strings.Join(want, "\n") && strings.Join(got, "\n") != strings.Join([]string{want[1], want[0]}, "\n") {
		t.Fatalf("the trail's secret.deleted records:\n%s\nwant (in either order):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	all := strings.Join(auditTrail(t, dir), "\n")
	if !strings.Contains(all, "project.deleted "+me+" api api") || strings.Contains(all, value) {
		t.Fatalf("the trail lacks the deletion's own record, or holds a secret's value:\n%s", all)
	}
}
