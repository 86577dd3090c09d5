package singlecli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// `users require-two-step on` requires two-step sign-in of every user on
// either binary (ql-edge here, ql below), naming the active users without
// it; `users list` then says so after its table and in -o json; setting
// it as it is changes and records nothing; `off` leaves it to each user
// again; each change is recorded as the operating-system user with on or
// off, and a word other than on or off is a usage error.
func TestUsersRequireTwoStepTurnsTheRequirementOnAndOffOnBothBinaries(t *testing.T) {
	t.Parallel()
	dir := aliceOnBobBegun(t)
	if code, out, errOut := ql(t, "users", "require-two-step", "on", "--data-dir", dir); code != 0 || !strings.Contains(out, "two-step sign-in is now required of every console user") || !strings.Contains(out, "1 without it (bob) can only set it up") {
		t.Fatalf("ql-edge users require-two-step on: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := ql(t, "users", "require-two-step", "on", "--data-dir", dir); code != 0 || !strings.Contains(out, "was already required of every console user; nothing changed") {
		t.Fatalf("requiring it again: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := ql(t, "users", "list", "--data-dir", dir); code != 0 || !strings.Contains(out, "two-step sign-in is required of every user: 1 without it (bob) can only set it up") {
		t.Fatalf("users list while it is required: %d %q %q", code, out, errOut)
	}
	code, out, errOut := ql(t, "users", "list", "-o", "json", "--data-dir", dir)
	var l struct {
		Required *bool `json:"twoStepRequired"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || l.Required == nil || !*l.Required {
		t.Fatalf("users list -o json while it is required: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := qlIn(t, "", "users", "require-two-step", "off", "--data-dir", dir); code != 0 || !strings.Contains(out, "two-step sign-in is no longer required") {
		t.Fatalf("ql users require-two-step off: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := ql(t, "users", "list", "--data-dir", dir); code != 0 || strings.Contains(out, "is required") {
		t.Fatalf("users list once it is not required: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := ql(t, "users", "require-two-step", "maybe", "--data-dir", dir); code != 2 || !strings.Contains(errOut, `takes on or off, not "maybe"`) {
		t.Fatalf("users require-two-step maybe: %d %q", code, errOut)
	}
	got := auditTrail(t, dir, "--action", "setting.two_step_required")
	want := []string{"setting.two_step_required " + osUser(t) + " two_step_required  off", "setting.two_step_required " + osUser(t) + " two_step_required  on"}
	if !slices.Equal(got, want) {
		t.Fatalf("changes recorded %q; want %q", got, want)
	}
}
