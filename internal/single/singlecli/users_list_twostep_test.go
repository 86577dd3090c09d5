package singlecli

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/single/server"
)

// `ql users list` ends each user's row with TWO-STEP, on or off, and
// `-o json` gives it as twoStep: on only for a secret confirmed, off for
// one begun and never confirmed.
func TestUsersListSaysWhoseTwoStepIsOn(t *testing.T) {
	t.Parallel()
	dir := aliceOnBobBegun(t)

	code, out, errOut := ql(t, "users", "list", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("users list: %d %q %q", code, out, errOut)
	}
	last := map[string]string{}
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if i == 0 {
			last["header"] = strings.Join(f[len(f)-2:], " ")
			continue
		}
		last[f[0]] = f[len(f)-1]
	}
	if want := map[string]string{"header": "SIGN-IN TWO-STEP", "alice": "on", "bob": "off"}; !maps.Equal(last, want) {
		t.Fatalf("users list's last column %v; want %v in\n%s", last, want, out)
	}

	code, out, errOut = ql(t, "users", "list", "-o", "json", "--data-dir", dir)
	var l struct {
		Users []map[string]any `json:"users"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil {
		t.Fatalf("users list -o json: %d %q %q", code, out, errOut)
	}
	on := map[string]any{}
	for _, u := range l.Users {
		on[u["name"].(string)] = u["twoStep"]
	}
	if want := map[string]any{"alice": true, "bob": false}; !maps.Equal(on, want) {
		t.Fatalf("users list -o json twoStep %v; want %v", on, want)
	}
}

// aliceOnBobBegun is a data directory of two users, alice with two-step
// on and bob with it begun and never confirmed.
func aliceOnBobBegun(t *testing.T) string {
	t.Helper()
	dir := installedDir(t)
	for _, name := range []string{"alice", "bob"} {
		if code, out, errOut := qlIn(t, "correct horse battery\n", "users", "create", name, "--password-stdin", "--data-dir", dir); code != 0 {
			t.Fatalf("users create %s: %d %q %q", name, code, out, errOut)
		}
	}
	turnOnAndBegin(t, dir, "alice", "bob")
	return dir
}

// turnOnAndBegin turns two-step on for the user named on, and begins it,
// never confirmed, for the one named begun.
func turnOnAndBegin(t *testing.T, dir, on, begun string) {
	t.Helper()
	const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	b, err := server.OpenBackend(t.Context(), server.LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	begin := func(name string) string {
		u, _, err := b.Store.UserCredentials(t.Context(), name)
		if err == nil {
			err = b.Store.TwoStepBegin(t.Context(), u.ID, secret)
		}
		if err != nil {
			t.Fatal(err)
		}
		return u.ID
	}
	if err := b.Store.TwoStepConfirm(t.Context(), begin(on), on, "console:user:"+on, secret, 1, nil); err != nil {
		t.Fatal(err)
	}
	begin(begun)
}
