package singlecli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/view"
)

// archivedFile is quietFile's project archived.
var archivedFile = strings.Replace(quietFile, "project: api\n", "project: api\nstatus: archived\n", 1)

// ql projects delete refuses an active project saying how to archive it,
// refuses without --yes where nobody can type the name, counts without
// deleting on --dry-run, and with --yes deletes the project and the
// secrets of its namespace, leaving other secrets.
func TestProjectsDeleteAsksForAnArchiveAndAConfirmationThenDeletesTheProjectAndItsSecrets(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	for _, name := range []string{"api/token", "shared"} {
		if code, _, errOut := qlStdin(t, "s3cret-value", "secrets", "set", name, "--data-dir", dir); code != 0 {
			t.Fatalf("secrets set %s: %d %q", name, code, errOut)
		}
	}
	code, _, errOut := ql(t, "projects", "delete", "api", "--yes", "--data-dir", dir)
	if code != 4 || !strings.Contains(errOut, "project api is active") || !strings.Contains(errOut, "status: archived") {
		t.Fatalf("delete an active project: %d %q; want exit 4 saying to archive it", code, errOut)
	}
	applyDefs(t, dir, archivedFile)
	code, out, errOut := qlStdin(t, "api\n", "projects", "delete", "api", "--data-dir", dir)
	if code != 2 || !strings.Contains(errOut, "standard input is not a terminal") || !strings.Contains(errOut, "--yes") || !strings.Contains(out, "deleting it would remove 1 task, 1 trigger") {
		t.Fatalf("delete without --yes off a terminal: %d %q %q; want the counts, then exit 2 asking for --yes", code, out, errOut)
	}
	code, out, errOut = ql(t, "projects", "delete", "api", "--dry-run", "-o", "json", "--data-dir", dir)
	var dry view.ProjectDeletion
	if code != 0 || json.Unmarshal([]byte(out), &dry) != nil || !dry.DryRun || dry.Tasks != 1 || dry.Triggers != 1 || len(dry.Secrets) != 1 || dry.Secrets[0] != "api/token" {
		t.Fatalf("dry run -o json: %d %q %q; want 1 task, 1 trigger and the secret api/token", code, out, errOut)
	}
	code, out, errOut = ql(t, "projects", "delete", "api", "--yes", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "deleted project api") || !strings.Contains(out, "removed 1 secret from the secrets file: api/token") {
		t.Fatalf("delete --yes: %d %q %q", code, out, errOut)
	}
	if code, out, _ := ql(t, "secrets", "list", "--data-dir", dir); code != 0 || strings.Contains(out, "api/token") || !strings.Contains(out, "shared") {
		t.Fatalf("secrets list after the deletion: %d %q; want shared kept and api/token gone", code, out)
	}
	if code, _, errOut := ql(t, "projects", "show", "api", "--data-dir", dir); code != 1 {
		t.Fatalf("projects show after the deletion: %d %q; want the project gone", code, errOut)
	}
	if code, _, errOut := ql(t, "projects", "delete", "api", "--yes", "--data-dir", dir); code != 1 || !strings.Contains(errOut, "does not exist") {
		t.Fatalf("delete it again: %d %q; want exit 1, not found", code, errOut)
	}
}
