package singlecli

import (
	"strings"
	"testing"
)

// A pause of a project or of a trigger admits no new Run but leaves those
// already queued to start: ql projects pause and ql triggers pause say how
// many and the command that drops them, in text and as queued in -o json;
// a pause that leaves none queued says nothing of it.
func TestAPauseSaysHowManyQueuedRunsStillStartAndHowToDropThem(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, twoTriggersFile)
	for range 2 {
		if code, _, errOut := ql(t, "triggers", "run", "api/yearly", "--force", "--data-dir", dir); code != 0 {
			t.Fatalf("triggers run: %d %q", code, errOut)
		}
	}
	code, out, errOut := ql(t, "triggers", "pause", "api/yearly", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "; 2 Runs queued before the pause still start; `ql-edge runs cancel --state queued --trigger api/yearly --data-dir "+dir+"` drops them") {
		t.Fatalf("triggers pause: %d %q %q; want it to say 2 queued Runs still start and how to drop them", code, out, errOut)
	}
	if code, out, _ := ql(t, "triggers", "pause", "api/monthly", "-o", "json", "--data-dir", dir); code != 0 || !strings.Contains(out, `"queued": 0`) {
		t.Fatalf("triggers pause of a trigger with none queued, -o json: %d %q; want queued 0", code, out)
	}
	code, out, errOut = ql(t, "projects", "pause", "api", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "; 2 Runs queued before the pause still start; `ql-edge runs cancel --state queued --project api --data-dir "+dir+"` drops them") {
		t.Fatalf("projects pause: %d %q %q; want it to say 2 queued Runs still start and how to drop them", code, out, errOut)
	}
	if code, out, _ := ql(t, "projects", "resume", "api", "--data-dir", dir); code != 0 || strings.Contains(out, "queued") {
		t.Fatalf("projects resume: %d %q; want nothing said of queued Runs", code, out)
	}
}
