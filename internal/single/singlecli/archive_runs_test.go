package singlecli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/httpapi"
)

// The apply that archives a project says, in text and JSON, that none of
// its queued Runs or retries starts while it is archived and that running
// ones are not stopped; a later apply of the archived project, which
// changes nothing, says nothing of them.
func TestArchivingAProjectSaysWhatBecomesOfItsQueuedAndRunningRuns(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	archived := strings.Replace(quietFile, "project: api\n", "project: api\nstatus: archived\n", 1)
	code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "archived.yaml", archived), "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "project api: updated; archived: none of its queued Runs or retries starts while it is archived") ||
		!strings.Contains(out, "Runs already running are not stopped") {
		t.Fatalf("apply archiving api: %d %q %q; want it to say its queued Runs wait and running ones go on", code, out, errOut)
	}
	code, out, errOut = ql(t, "apply", "-f", writeFile(t, dir, "again.yaml", archived), "--data-dir", dir, "-o", "json")
	var v httpapi.ApplyView
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || len(v.Objects) == 0 || v.Objects[0].Runs != "" {
		t.Fatalf("apply of the archived project again: %d %q %q; want no word of its Runs", code, out, errOut)
	}
	applyDefs(t, dir, strings.Replace(quietFile, "project: api\n", "project: api\nstatus: active\n", 1))
	code, out, errOut = ql(t, "apply", "-f", writeFile(t, dir, "archived2.yaml", archived), "--data-dir", dir, "-o", "json")
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || len(v.Objects) == 0 || !strings.Contains(v.Objects[0].Runs, "none of its queued Runs or retries starts") {
		t.Fatalf("apply -o json archiving api: %d %q %q; want the project's object to say what becomes of its Runs", code, out, errOut)
	}
}
