package singlecli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// qlIn runs `ql` with standard input.
func qlIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	root := cli.NewRoot(Options("ql"))
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SilenceErrors, root.SilenceUsage = true, true
	if err := root.ExecuteContext(context.Background()); err != nil {
		return 1, out.String(), err.Error()
	}
	return 0, out.String(), errOut.String()
}

// `ql users` sets up the first owner with a password read from standard
// input (never echoed back), lists users without their hashes, refuses a
// short password and a password without a terminal or --password-stdin,
// and disables, re-passwords, enables (with a new password) and deletes a
// user.
func TestUsersCommandsManageConsoleAccounts(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	const pw = "correct horse battery"
	code, out, errOut := qlIn(t, pw+"\n", "users", "create", "alice", "--owner", "--password-stdin", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, `"alice" (role owner, scope admin)`) || strings.Contains(out+errOut, pw) {
		t.Fatalf("create the owner: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := qlIn(t, "short\n", "users", "create", "bob", "--password-stdin", "--data-dir", dir); code == 0 || !strings.Contains(errOut, "at least 10") {
		t.Fatalf("a short password: %d %q", code, errOut)
	}
	if code, _, errOut := qlIn(t, pw+"\n", "users", "create", "bob", "--data-dir", dir); code == 0 || !strings.Contains(errOut, "--password-stdin") {
		t.Fatalf("no terminal and no --password-stdin: %d %q", code, errOut)
	}
	if code, _, errOut := qlIn(t, pw+"\n", "users", "create", "alice", "--password-stdin", "--data-dir", dir); code == 0 || !strings.Contains(errOut, "exists") {
		t.Fatalf("a second alice: %d %q", code, errOut)
	}
	if code, out, errOut := qlIn(t, pw+"2\n", "users", "passwd", "alice", "--password-stdin", "--data-dir", dir); code != 0 || !strings.Contains(out, "new password") {
		t.Fatalf("passwd: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := qlIn(t, "", "users", "disable", "alice", "--data-dir", dir); code != 0 || !strings.Contains(out, "disabled") {
		t.Fatalf("disable: %d %q %q", code, out, errOut)
	}
	code, out, errOut = qlIn(t, "", "users", "list", "-o", "json", "--data-dir", dir)
	var list struct {
		Users []map[string]any `json:"users"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list.Users) != 1 || list.Users[0]["state"] != "disabled" || list.Users[0]["scope"] != "admin" || strings.Contains(out, "argon2") {
		t.Fatalf("list: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := qlIn(t, "", "users", "enable", "alice", "--data-dir", dir); code == 0 || !strings.Contains(errOut, "--password-stdin") {
		t.Fatalf("enable without a new password: %d %q", code, errOut)
	}
	if code, out, errOut := qlIn(t, pw+"3\n", "users", "enable", "alice", "--password-stdin", "--data-dir", dir); code != 0 || !strings.Contains(out, "enabled with a new password") {
		t.Fatalf("enable: %d %q %q", code, out, errOut)
	}
	if code, out, _ := qlIn(t, "", "users", "list", "-o", "json", "--data-dir", dir); code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list.Users) != 1 || list.Users[0]["state"] != "active" {
		t.Fatalf("list after enable: %d %q", code, out)
	}
	if code, _, errOut := qlIn(t, "", "users", "delete", "alice", "--data-dir", dir); code != 0 {
		t.Fatalf("delete: %q", errOut)
	}
	if code, _, errOut := qlIn(t, "", "users", "delete", "alice", "--data-dir", dir); code == 0 || !strings.Contains(errOut, "no user is named") {
		t.Fatalf("delete a missing user: %d %q", code, errOut)
	}
}
