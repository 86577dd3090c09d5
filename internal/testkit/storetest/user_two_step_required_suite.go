package storetest

import (
	"maps"
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/audit"
)

// testTwoStepRequiredIsOneSettingForEveryUser: the requirement starts
// off; turned on by the operator's role it reads on through the
// console's, and off again through the console's it reads off through
// the operator's (on the cluster, two roles over one row). Each change is
// audited with who and on or off; setting it as it is changes and
// records nothing. While it is on, a user whose two-step is not on (none,
// or a key only begun) is walled, one with it on is not; while it is off
// nobody is.
func testTwoStepRequiredIsOneSettingForEveryUser(t *testing.T, f Fixture) {
	ctx := t.Context()
	ts := twoStepStore(t, f)
	none := createUser(t, f, "nina", account.Viewer)
	begun := createUser(t, f, "otto", account.Operator)
	on := createUser(t, f, "pia", account.Owner)
	if err := ts.TwoStepBegin(ctx, begun.ID, twoStepSecretB); err != nil {
		t.Fatal(err)
	}
	turnTwoStepOn(t, ts, on, 1, nil)
	required := func(want bool) {
		t.Helper()
		for name, p := range map[string]account.TwoStepPolicy{"manager": f.Users, "console": ts} {
			if got, err := p.TwoStepRequired(ctx); err != nil || got != want {
				t.Fatalf("required through the %s's store: %v (%v); want %v", name, got, err, want)
			}
		}
	}
	walled := func(want map[string]bool) {
		t.Helper()
		got := map[string]bool{}
		for _, u := range []account.User{none, begun, on} {
			w, err := ts.TwoStepWalled(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			got[u.Name] = w
		}
		if !maps.Equal(got, want) {
			t.Fatalf("walled %v; want %v", got, want)
		}
	}
	nobody := map[string]bool{"nina": false, "otto": false, "pia": false}
	required(false)
	walled(nobody)
	if changed, err := f.Users.TwoStepRequire(ctx, true, "root"); err != nil || !changed {
		t.Fatalf("require it: %v, %v; want changed", changed, err)
	}
	required(true)
	walled(map[string]bool{"nina": true, "otto": true, "pia": false})
	if changed, err := ts.TwoStepRequire(ctx, true, "console:user:pia"); err != nil || changed {
		t.Fatalf("require it again: %v, %v; want nothing changed", changed, err)
	}
	if changed, err := ts.TwoStepRequire(ctx, false, "console:user:pia"); err != nil || !changed {
		t.Fatalf("stop requiring it: %v, %v; want changed", changed, err)
	}
	required(false)
	walled(nobody)
	got := auditLines(auditAll(t, f, audit.Query{Action: audit.SettingTwoStepRequired}))
	want := []string{
		"setting.two_step_required console:user:pia setting two_step_required  off",
		"setting.two_step_required root setting two_step_required  on",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("changes recorded %q; want %q", got, want)
	}
}
