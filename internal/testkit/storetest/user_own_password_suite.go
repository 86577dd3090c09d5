package storetest

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// testUserOwnPasswordStale: a user's own password change (the console's
// account page, through the store that signs users in) replaces the hash
// it checked the current password against and nothing else: a password
// set meanwhile, a disabled or a missing account refuses it and keeps
// what is stored.
func testUserOwnPasswordStale(t *testing.T, f Fixture) {
	pc, ok := f.UserAuth.(account.PasswordChanger)
	if !ok {
		t.Fatalf("%T does not change a user's own password (account.PasswordChanger)", f.UserAuth)
	}
	const hashC = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$a2V5Qw"
	u := createUser(t, f, "alice", account.Operator)
	if err := pc.UserChangePassword(t.Context(), u.ID, hashA, hashB, "tester"); err != nil {
		t.Fatalf("a change from the current hash: %v", err)
	}
	requireStoredHash(t, f, "alice", hashB)
	requireCode(t, pc.UserChangePassword(t.Context(), u.ID, hashA, hashC, "tester"), qlerror.Conflict, "a change from a stale hash")
	requireStoredHash(t, f, "alice", hashB)
	if err := errOnly(f.Users.UserDisable(t.Context(), "alice", "tester")); err != nil {
		t.Fatal(err)
	}
	requireCode(t, pc.UserChangePassword(t.Context(), u.ID, hashB, hashC, "tester"), qlerror.Conflict, "a change of a disabled account")
	requireStoredHash(t, f, "alice", hashB)
	requireCode(t, pc.UserChangePassword(t.Context(), ids.New(), hashB, hashC, "tester"), qlerror.Conflict, "a change of a missing account")
}

func requireStoredHash(t *testing.T, f Fixture, name, want string) {
	t.Helper()
	if _, hash, err := f.UserAuth.UserCredentials(t.Context(), name); err != nil || hash != want {
		t.Fatalf("%s's stored hash is %q (%v); want %q", name, hash, err, want)
	}
}
