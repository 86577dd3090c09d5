package singlecli

import (
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/single/server"
)

// `ql users reset-two-step NAME` turns off the two-step sign-in of a user
// who lost the phone, recorded as the operating-system user who ran it; a
// second reset changes and records nothing, and a name no user has is
// refused.
func TestUsersResetTwoStepTurnsItOffAndIsAudited(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := qlIn(t, "correct horse battery\n", "users", "create", "alice", "--password-stdin", "--data-dir", dir); code != 0 {
		t.Fatalf("users create: %d %q %q", code, out, errOut)
	}
	b, err := server.OpenBackend(t.Context(), server.LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, _, err := b.Store.UserCredentials(t.Context(), "alice")
	if err == nil {
		err = b.Store.TwoStepBegin(t.Context(), u.ID, "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP")
	}
	if err == nil {
		err = b.Store.TwoStepConfirm(t.Context(), u.ID, "alice", "console:user:alice", "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", 1, []string{account.RecoveryDigest("aaaaa-aaaaa")})
	}
	b.Close()
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := ql(t, "users", "reset-two-step", "alice", "--data-dir", dir); code != 0 || !strings.Contains(out, `user "alice" has two-step sign-in turned off`) {
		t.Fatalf("users reset-two-step: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := ql(t, "users", "reset-2fa", "alice", "--data-dir", dir); code != 0 || !strings.Contains(out, "has no two-step sign-in on; nothing changed") {
		t.Fatalf("a second reset: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := ql(t, "users", "reset-two-step", "bob", "--data-dir", dir); code == 0 || !strings.Contains(errOut, `no user is named "bob"`) {
		t.Fatalf("a reset of no user: %d %q", code, errOut)
	}
	resets := auditTrail(t, dir, "--action", "user.two_step_reset")
	if want := []string{"user.two_step_reset " + osUser(t) + " alice  "}; !slices.Equal(resets, want) {
		t.Fatalf("resets recorded %q; want %q", resets, want)
	}
}

// `ql users reset-two-step` of a user whose key was begun and never
// confirmed says it forgot the waiting key, not that nothing changed; a
// second reset then finds nothing.
func TestUsersResetTwoStepOfAWaitingKeySaysItForgotIt(t *testing.T) {
	t.Parallel()
	dir := aliceOnBobBegun(t)
	if code, out, errOut := ql(t, "users", "reset-two-step", "bob", "--data-dir", dir); code != 0 || !strings.Contains(out, `user "bob" had two-step sign-in waiting for its first code, never on: the waiting key is forgotten`) {
		t.Fatalf("a reset of a waiting key: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := ql(t, "users", "reset-two-step", "bob", "--data-dir", dir); code != 0 || !strings.Contains(out, "has no two-step sign-in on; nothing changed") {
		t.Fatalf("a second reset: %d %q %q", code, out, errOut)
	}
	if resets := auditTrail(t, dir, "--action", "user.two_step_reset"); len(resets) != 0 {
		t.Fatalf("a waiting key's reset was recorded: %q", resets)
	}
}
