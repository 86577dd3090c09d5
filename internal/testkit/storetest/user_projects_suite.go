package storetest

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A user created bound to projects is read back bound to them by the
// sign-in, the session check and the listing; set-projects rebinds and
// unbinds it; an owner is refused projects at creation and after, and a
// missing name is NotFound.
func testUserProjects(t *testing.T, f Fixture) {
	ctx := t.Context()
	u, err := f.Users.UserCreate(ctx, account.NewUser{ID: ids.New(), Name: "alpha-ops", Role: account.Operator, Hash: hashA, Projects: []string{"alpha", "beta"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"alpha", "beta"}
	read := func(what string, want []string) {
		t.Helper()
		byName, _, err := f.UserAuth.UserCredentials(ctx, "alpha-ops")
		if err != nil || !slices.Equal(byName.Projects, want) {
			t.Errorf("%s: credentials' projects %v, %v; want %v", what, byName.Projects, err, want)
		}
		byID, err := f.UserAuth.UserByID(ctx, u.ID)
		if err != nil || !slices.Equal(byID.Projects, want) {
			t.Errorf("%s: session check's projects %v, %v; want %v", what, byID.Projects, err, want)
		}
		list, err := f.Users.UserList(ctx)
		if err != nil || len(list) != 1 || !slices.Equal(list[0].Projects, want) {
			t.Errorf("%s: listed %+v, %v; want projects %v", what, list, err, want)
		}
	}
	read("created", want)
	if err := f.Users.UserSetProjects(ctx, "alpha-ops", []string{"gamma"}, "root"); err != nil {
		t.Fatal(err)
	}
	read("rebound", []string{"gamma"})
	if err := f.Users.UserSetProjects(ctx, "alpha-ops", nil, "root"); err != nil {
		t.Fatal(err)
	}
	read("unbound", nil)
	createUser(t, f, "root", account.Owner)
	if err := f.Users.UserSetProjects(ctx, "root", []string{"alpha"}, "root"); qlerror.CodeOf(err) != qlerror.Invalid {
		t.Errorf("binding an owner: %v; want it refused", err)
	}
	if err := f.Users.UserSetProjects(ctx, "root", nil, "root"); err != nil {
		t.Errorf("an owner of every project set to every project: %v", err)
	}
	if _, err := f.Users.UserCreate(ctx, account.NewUser{ID: ids.New(), Name: "boss", Role: account.Owner, Hash: hashA, Projects: []string{"alpha"}}); err == nil {
		t.Error("an owner bound to a project was stored; want the store to refuse it")
	}
	if err := f.Users.UserSetProjects(ctx, "nobody", []string{"alpha"}, "root"); qlerror.CodeOf(err) != qlerror.NotFound {
		t.Errorf("binding a missing user: %v; want NotFound", err)
	}
}
