package singlecli

import (
	"strings"
	"testing"
)

// `ql users enable NAME` of a user already enabled says so and exits 0
// without asking for a password: none is read, here where standard input
// is no terminal and --password-stdin is not given, which a prompt would
// refuse. A name no user has is refused before any prompt too.
func TestEnablingAnEnabledUserSaysSoWithoutAskingForAPassword(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := qlIn(t, "correct horse battery\n", "users", "create", "alice", "--password-stdin", "--data-dir", dir); code != 0 {
		t.Fatalf("users create: %d %q %q", code, out, errOut)
	}
	code, out, errOut := qlIn(t, "", "users", "enable", "alice", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, `user "alice" is already enabled; nothing changed`) || strings.Contains(errOut, "Password") {
		t.Fatalf("users enable of an enabled user: %d %q %q; want exit 0 saying it is already enabled, no password asked", code, out, errOut)
	}
	if code, _, errOut := qlIn(t, "", "users", "enable", "bob", "--data-dir", dir); code == 0 || !strings.Contains(errOut, `no user is named "bob"`) {
		t.Fatalf("users enable of no user: %d %q; want refused naming it, not a password asked", code, errOut)
	}
}
