package storetest

import (
	"sync"
	"testing"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

func firstOwnerStore(t *testing.T, f Fixture) account.FirstOwner {
	t.Helper()
	fo, ok := f.Users.(account.FirstOwner)
	if !ok {
		t.Fatalf("%T does not create a first owner (account.FirstOwner)", f.Users)
	}
	return fo
}

func testUserFirstOnlyWhileNone(t *testing.T, f Fixture) {
	fo := firstOwnerStore(t, f)
	if exist, err := fo.UsersExist(t.Context()); err != nil || exist {
		t.Fatalf("users exist in an empty store: %v %v", exist, err)
	}
	first, err := fo.UserCreateFirst(t.Context(), account.NewUser{ID: ids.New(), Name: "lead", Role: account.Owner, Hash: hashA})
	if err != nil || first.CreatedAtMs <= 0 {
		t.Fatalf("first owner: %+v %v", first, err)
	}
	got, hash, err := f.UserAuth.UserCredentials(t.Context(), "lead")
	if err != nil || got.ID != first.ID || got.Role != account.Owner || hash != hashA {
		t.Fatalf("first owner stored as %+v %q %v", got, hash, err)
	}
	if exist, err := fo.UsersExist(t.Context()); err != nil || !exist {
		t.Fatalf("no user exists after the first: %v %v", exist, err)
	}
	_, err = fo.UserCreateFirst(t.Context(), account.NewUser{ID: ids.New(), Name: "second", Role: account.Owner, Hash: hashB})
	if qlerror.CodeOf(err) != qlerror.Conflict {
		t.Fatalf("a second first owner: %v; want Conflict", err)
	}
	if _, _, err := f.UserAuth.UserCredentials(t.Context(), "second"); qlerror.CodeOf(err) != qlerror.NotFound {
		t.Fatalf("the refused second owner was stored: %v", err)
	}
}

func testUserFirstOnce(t *testing.T, f Fixture) {
	fo := firstOwnerStore(t, f)
	const n = 4
	errs := make([]error, n)
	var start, wg sync.WaitGroup
	start.Add(1)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start.Wait()
			_, errs[i] = fo.UserCreateFirst(t.Context(), account.NewUser{ID: ids.New(), Name: "lead" + string(rune('a'+i)), Role: account.Owner, Hash: hashA})
		}()
	}
	start.Done()
	wg.Wait()
	created := 0
	for _, err := range errs {
		switch {
		case err == nil:
			created++
		case qlerror.CodeOf(err) != qlerror.Conflict:
			t.Fatalf("first owner: %v", err)
		}
	}
	list, err := f.Users.UserList(t.Context())
	if err != nil || created != 1 || len(list) != 1 {
		t.Fatalf("%d of %d first owners created, %d stored (%v); want exactly one", created, n, len(list), err)
	}
}
