package storetest

import (
	"maps"
	"testing"

	"github.com/qinglong/qinglong/internal/core/account"
)

// testUserListSaysWhoseTwoStepIsOn: the list of accounts says two-step is
// on for a user who confirmed a secret, and off for one who only began
// one, one who turned it off and one who never had it.
func testUserListSaysWhoseTwoStepIsOn(t *testing.T, f Fixture) {
	ctx := t.Context()
	ts := twoStepStore(t, f)
	on := createUser(t, f, "anna", account.Viewer)
	waiting := createUser(t, f, "bert", account.Viewer)
	turnedOff := createUser(t, f, "cleo", account.Viewer)
	createUser(t, f, "dirk", account.Viewer)
	turnTwoStepOn(t, ts, on, 1, nil)
	if err := ts.TwoStepBegin(ctx, waiting.ID, twoStepSecretB); err != nil {
		t.Fatal(err)
	}
	turnTwoStepOn(t, ts, turnedOff, 1, nil)
	if err := ts.TwoStepOff(ctx, turnedOff.ID, turnedOff.Name, "tester"); err != nil {
		t.Fatal(err)
	}
	list, err := f.Users.UserList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, u := range list {
		got[u.Name] = u.TwoStepOn
	}
	want := map[string]bool{"anna": true, "bert": false, "cleo": false, "dirk": false}
	if !maps.Equal(got, want) {
		t.Fatalf("two-step on by name %v; want %v", got, want)
	}
}
