package singlecli

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// `projects list` names every project with its status and whether it is
// paused as a whole, the same on the database and over the API with a
// read token: a user finds a project's name there, not by provoking an
// error that lists them.
func TestProjectsListNamesEachProjectWithItsStatusAndWhetherItIsPaused(t *testing.T) {
	dir := installedDir(t)
	if code, out, errOut := ql(t, "projects", "list", "--data-dir", dir); code != 0 || !strings.Contains(out, "no project yet") {
		t.Fatalf("projects list of a database without projects: %d %q %q; want exit 0 saying there is none", code, out, errOut)
	}
	applyDefs(t, dir, quietFile)
	applyDefs(t, dir, "project: old\nstatus: archived\n")
	if code, _, errOut := ql(t, "projects", "pause", "api", "--data-dir", dir); code != 0 {
		t.Fatalf("projects pause: %d %q", code, errOut)
	}
	type listed struct {
		Name, Status string
		Paused       bool
	}
	want := []listed{{"api", "active", true}, {"old", "archived", false}}
	read := func(out string) []listed {
		t.Helper()
		var l struct{ Projects []listed }
		if err := json.Unmarshal([]byte(out), &l); err != nil {
			t.Fatalf("projects list -o json: %v in %q", err, out)
		}
		return l.Projects
	}
	code, out, _ := ql(t, "projects", "list", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "api      -      active    yes") || !strings.Contains(out, "old      -      archived  no") {
		t.Fatalf("projects list: %d %q; want api active and paused, old archived", code, out)
	}
	if code, out, _ := ql(t, "projects", "list", "-o", "json", "--data-dir", dir); code != 0 || !reflect.DeepEqual(read(out), want) {
		t.Fatalf("projects list -o json: %d %q; want %+v", code, out, want)
	}
	t.Setenv("QL_TOKEN", newToken(t, dir, "reader", "read"))
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_DATA_DIR", "")
	if got := overAPI(t, base, "projects", "list", "-o", "json"); got.code != 0 || !reflect.DeepEqual(read(got.out), want) {
		t.Fatalf("projects list -o json over the API: %d %q %q; want %+v", got.code, got.out, got.err, want)
	}
}
