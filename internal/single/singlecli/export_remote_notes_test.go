package singlecli

import (
	"strings"
	"testing"
)

// `export PROJECT --api-url` notes the paused project and the triggers
// paused on their own in the words `export PROJECT` uses on the database:
// a pause is schedule state the file cannot carry, whichever way the file
// was read. The move it suggests (`export --all --with-state`) reads the
// database itself, so it never repeats --api-url. Not parallel: it sets
// $QL_TOKEN.
func TestExportOverTheAPINotesThePausesAsOnTheDatabase(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, twoTriggersFile)
	for _, args := range [][]string{{"triggers", "pause", "api/monthly"}, {"projects", "pause", "api"}} {
		if code, out, errOut := ql(t, append(args, "--data-dir", dir)...); code != 0 {
			t.Fatalf("%v: exit %d %q %q", args, code, out, errOut)
		}
	}
	admin := newToken(t, dir, "admin", "admin")
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_DATA_DIR", "")
	code, localOut, local := ql(t, "export", "api", "--data-dir", dir)
	if code != 0 || !strings.Contains(local, "project api is paused (since ") || !strings.Contains(local, "paused on their own in project api: 1 trigger (monthly)") {
		t.Fatalf("export on the database: exit %d %q; want the project's pause and monthly's own noted", code, local)
	}
	t.Setenv("QL_TOKEN", admin)
	code, remoteOut, remote := ql(t, "export", "api", "--api-url", base)
	if want := strings.ReplaceAll(local, " --data-dir "+dir, ""); code != 0 || remote != want || remoteOut != localOut {
		t.Errorf("export over the API: exit %d\n%s\nwant the notes the database gives:\n%s", code, remote, want)
	}
}
