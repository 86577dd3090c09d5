package singlecli

import (
	"strings"
	"testing"
)

// `ql users create`, `passwd` and `enable` (of a disabled user) refuse a
// password that is one of the most common, as it is, with digits and
// symbols added or with letters written as the digits and symbols that
// stand for them, or that contains the user's name in any case, saying
// why and what to do; a password that is neither is taken.
func TestUsersCommandsRefuseCommonPasswordsAndOnesContainingTheName(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	for _, c := range []struct{ args, password, want string }{
		{"create alice --owner", "Password123!", "one of the most common passwords"},
		{"create alice --owner", "1q2w3e4r5t", "one of the most common passwords"},
		{"create alice --owner", "QingLong2026", "one of the most common passwords"},
		{"create alice --owner", "M0nk3y!!2024", "one of the most common passwords"},
		{"create alice --owner", "my-name-is-ALICE", `contains the user name "alice"`},
	} {
		code, _, errOut := qlIn(t, c.password+"\n", append(strings.Fields("users "+c.args), "--password-stdin", "--data-dir", dir)...)
		if code == 0 || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "choose") {
			t.Errorf("users %s with %q: %d %q, want a refusal saying %q and what to do", c.args, c.password, code, errOut, c.want)
		}
	}
	if code, out, errOut := qlIn(t, "correct horse battery\n", "users", "create", "alice", "--owner", "--password-stdin", "--data-dir", dir); code != 0 {
		t.Fatalf("a good password: %d %q %q", code, out, errOut)
	}
	for _, verb := range []string{"passwd", "enable"} {
		if verb == "enable" {
			// An enabled user is left as it is before any password is
			// read: the password is checked when enabling a disabled one.
			if code, out, errOut := qlIn(t, "", "users", "disable", "alice", "--data-dir", dir); code != 0 {
				t.Fatalf("users disable: %d %q %q", code, out, errOut)
			}
		}
		if code, _, errOut := qlIn(t, "letmein2026\n", "users", verb, "alice", "--password-stdin", "--data-dir", dir); code == 0 || !strings.Contains(errOut, "one of the most common passwords") {
			t.Errorf("users %s with a common password: %d %q, want a refusal", verb, code, errOut)
		}
		if code, _, errOut := qlIn(t, "alice-again-2026\n", "users", verb, "alice", "--password-stdin", "--data-dir", dir); code == 0 || !strings.Contains(errOut, "contains the user name") {
			t.Errorf("users %s with a password containing the name: %d %q, want a refusal", verb, code, errOut)
		}
	}
}
