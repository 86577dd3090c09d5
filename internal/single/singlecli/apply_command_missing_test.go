package singlecli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A task whose program does not exist on this machine yet is applied (it
// may be installed afterwards) with a note naming the task and the path,
// on stderr and in -o json's notes; a program that exists gets none.
func TestApplyOnASingleNodeNotesATaskWhoseProgramDoesNotExistAndAppliesIt(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	missing := filepath.Join(dir, "not-installed", "backup.sh")
	defs := `project: ops
tasks:
  - name: backup
    command: ["` + missing + `", "--all"]
  - name: present
    command: ["/bin/true"]
`
	file := writeFile(t, dir, "ops.yaml", defs)
	code, out, errOut := ql(t, "apply", "-f", file, "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "task backup: created") {
		t.Fatalf("apply: exit %d, %q %q; want it applied", code, out, errOut)
	}
	if !strings.Contains(errOut, "note: ") || !strings.Contains(errOut, "(tasks: backup ("+missing+"))") || strings.Contains(errOut, "present") {
		t.Errorf("apply's stderr: %q; want a note naming backup and %s only", errOut, missing)
	}
	code, out, errOut = ql(t, "apply", "-f", file, "--data-dir", dir, "-o", "json")
	var got struct {
		Notes []struct {
			Reason string              `json:"reason"`
			Items  []map[string]string `json:"items"`
		} `json:"notes"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 {
		t.Fatalf("apply -o json: exit %d, %q %q (%v)", code, out, errOut, err)
	}
	found := false
	for _, n := range got.Notes {
		if n.Reason == "defs_note_command_missing" {
			found = len(n.Items) == 1 && n.Items[0]["name"] == "backup" && n.Items[0]["path"] == missing
		}
	}
	if !found {
		t.Errorf("apply -o json notes: %+v; want defs_note_command_missing naming backup and %s", got.Notes, missing)
	}
}
