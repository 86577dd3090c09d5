package singlecli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// `users create --project` binds a user to those projects, `users
// set-projects` rebinds and unbinds it, and `users list` shows them in
// text and in JSON; an owner is refused projects, and set-projects wants
// --project or --every-project, not both.
func TestAUsersProjectsAreSetByTheCLIAndShownByUsersList(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	const pw = "correct horse battery"
	code, out, errOut := qlIn(t, pw+"\n", "users", "create", "alpha-ops", "--role", "operator", "--project", "bravo", "--project", "alpha", "--password-stdin", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "projects alpha,bravo") {
		t.Fatalf("users create --project: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := qlIn(t, pw+"\n", "users", "create", "boss", "--owner", "--project", "alpha", "--password-stdin", "--data-dir", dir); code == 0 || !strings.Contains(errOut, "an owner acts on every project") {
		t.Errorf("users create --owner --project: %d %q %q; want it refused", code, out, errOut)
	}
	if code, out, errOut := qlIn(t, pw+"\n", "users", "create", "boss", "--owner", "--password-stdin", "--data-dir", dir); code != 0 {
		t.Fatalf("users create --owner: %d %q %q", code, out, errOut)
	}
	code, out, errOut = ql(t, "users", "list", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "PROJECTS") || !strings.Contains(out, "alpha,bravo") || !strings.Contains(out, "every project") {
		t.Fatalf("users list: %d %q %q; want each user's projects", code, out, errOut)
	}
	if code, _, errOut := ql(t, "users", "set-projects", "boss", "--project", "alpha", "--data-dir", dir); code == 0 || !strings.Contains(errOut, "an owner acts on every project") {
		t.Errorf("users set-projects of an owner: %d %q; want it refused", code, errOut)
	}
	if code, _, errOut := ql(t, "users", "set-projects", "alpha-ops", "--data-dir", dir); code != 2 {
		t.Errorf("users set-projects without --project or --every-project: %d %q; want exit 2", code, errOut)
	}
	if code, _, errOut := ql(t, "users", "set-projects", "alpha-ops", "--project", "gamma", "--every-project", "--data-dir", dir); code != 2 {
		t.Errorf("users set-projects with both --project and --every-project: %d %q; want exit 2", code, errOut)
	}
	if code, _, errOut := ql(t, "users", "set-projects", "alpha-ops", "--project", "gamma", "--data-dir", dir); code != 0 {
		t.Fatalf("users set-projects --project gamma: %d %q", code, errOut)
	}
	listed := func() map[string][]string {
		t.Helper()
		code, out, errOut := ql(t, "users", "list", "-o", "json", "--data-dir", dir)
		var l struct {
			Users []cli.UserView `json:"users"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &l) != nil {
			t.Fatalf("users list -o json: %d %q %q", code, out, errOut)
		}
		m := map[string][]string{}
		for _, u := range l.Users {
			m[u.Name] = u.Projects
		}
		return m
	}
	if got := listed(); !slices.Equal(got["alpha-ops"], []string{"gamma"}) || got["boss"] == nil || len(got["boss"]) != 0 {
		t.Errorf("users list -o json after set-projects: %v; want alpha-ops bound to gamma, boss to [] (every project)", got)
	}
	if code, _, errOut := ql(t, "users", "set-projects", "alpha-ops", "--every-project", "--data-dir", dir); code != 0 {
		t.Fatalf("users set-projects --every-project: %d %q", code, errOut)
	}
	if got := listed(); len(got["alpha-ops"]) != 0 {
		t.Errorf("users list -o json after --every-project: %v; want alpha-ops of every project", got)
	}
}
