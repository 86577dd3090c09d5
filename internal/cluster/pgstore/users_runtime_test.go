package pgstore

import (
	"sync"
	"testing"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Hashes are stored as given (the console hashes), so any string the
// table's check accepts will do.
const (
	testHashA = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$a2V5QQ"
	testHashB = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$a2V5Qg"
	testHashC = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$a2V5Qw"
)

// Two replicas (two runtime pools) whose setup pages are submitted at the
// same time create exactly one owner between them: the function's table
// lock makes the check for an account and the insert one step.
func TestTwoReplicasSetupsCreateExactlyOneOwner(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	replicas := []*Runtime{e.openRuntime(t, "replica-a", testLease), e.openRuntime(t, "replica-b", testLease)}
	const n = 6
	errs := make([]error, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			_, errs[i] = replicas[i%2].UserCreateFirst(t.Context(), account.NewUser{ID: ids.New(), Name: "lead" + string(rune('a'+i)), Role: account.Owner, Hash: testHashA})
		}()
	}
	start.Done()
	done.Wait()
	created := 0
	for i, err := range errs {
		switch {
		case err == nil:
			created++
		case qlerror.CodeOf(err) != qlerror.Conflict:
			t.Errorf("setup %d: %v; want created or Conflict", i, err)
		}
	}
	var rows int
	if err := e.super.QueryRow(t.Context(), "SELECT count(*) FROM qinglong.console_users WHERE role = 'owner'").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if created != 1 || rows != 1 {
		t.Fatalf("%d setups reported an owner created and %d owners are stored; want exactly 1 of each", created, rows)
	}
	if exist, err := replicas[1].UsersExist(t.Context()); err != nil || !exist {
		t.Fatalf("users exist after the setups: %v %v; want true", exist, err)
	}
}

// The function creates an owner only: a first account of another role is
// refused before the database is asked.
func TestTheFirstAccountAReplicaCreatesIsAnOwner(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rt := e.openRuntime(t, "replica-a", testLease)
	_, err := rt.UserCreateFirst(t.Context(), account.NewUser{ID: ids.New(), Name: "lead", Role: account.Viewer, Hash: testHashA})
	if qlerror.CodeOf(err) != qlerror.Invalid {
		t.Fatalf("a first viewer: %v; want Invalid", err)
	}
	u, err := rt.UserCreateFirst(t.Context(), account.NewUser{ID: ids.New(), Name: "lead", Role: account.Owner, Hash: testHashA})
	if err != nil || u.CreatedAtMs <= 0 {
		t.Fatalf("a first owner: %+v %v", u, err)
	}
	got, hash, err := rt.UserCredentials(t.Context(), "lead")
	if err != nil || got.ID != u.ID || got.Role != account.Owner || hash != testHashA || got.CreatedAtMs != u.CreatedAtMs {
		t.Fatalf("the first owner is stored as %+v %q %v; want %+v with its hash", got, hash, err, u)
	}
}

// A replica changes a user's password only while the hash it checked the
// current password against is still the account's: a password set on
// another replica or with `ql users passwd` meanwhile, or a disabled
// account, refuses it and keeps what is stored.
func TestAPasswordChangeOnAReplicaRefusesAStaleHash(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	other := s.env.openRuntime(t, "replica-b", testLease)
	u, err := s.admin.UserCreate(t.Context(), account.NewUser{ID: ids.New(), Name: "alice", Role: account.Operator, Hash: testHashA})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.UserChangePassword(t.Context(), u.ID, testHashA, testHashB, "tester"); err != nil {
		t.Fatalf("a change from the current hash: %v", err)
	}
	err = s.runtime.UserChangePassword(t.Context(), u.ID, testHashA, testHashC, "tester")
	if qlerror.CodeOf(err) != qlerror.Conflict {
		t.Fatalf("a change from a stale hash: %v; want Conflict", err)
	}
	requireHash(t, s.runtime, "alice", testHashB)

	if _, err := s.admin.UserDisable(t.Context(), "alice", "tester"); err != nil {
		t.Fatal(err)
	}
	if err := s.runtime.UserChangePassword(t.Context(), u.ID, testHashB, testHashC, "tester"); qlerror.CodeOf(err) != qlerror.Conflict {
		t.Fatalf("a change of a disabled account: %v; want Conflict", err)
	}
	requireHash(t, s.runtime, "alice", testHashB)
	if err := s.runtime.UserChangePassword(t.Context(), ids.New(), testHashB, testHashC, "tester"); qlerror.CodeOf(err) != qlerror.Conflict {
		t.Fatalf("a change of an account that does not exist: %v; want Conflict", err)
	}
}

// A password changed on one replica ends the user's sessions on every
// replica: each session is held in its replica's memory with the stamp of
// the hash it signed in with, and every request checks that stamp against
// the database's.
func TestAPasswordChangeOnOneReplicaChangesTheStampEveryReplicaChecks(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	other := s.env.openRuntime(t, "replica-b", testLease)
	u, err := s.admin.UserCreate(t.Context(), account.NewUser{ID: ids.New(), Name: "alice", Role: account.Owner, Hash: testHashA})
	if err != nil {
		t.Fatal(err)
	}
	before, err := other.UserByID(t.Context(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.runtime.UserChangePassword(t.Context(), u.ID, testHashA, testHashB, "tester"); err != nil {
		t.Fatal(err)
	}
	after, err := other.UserByID(t.Context(), u.ID)
	if err != nil || after.PasswordStamp == before.PasswordStamp || after.PasswordStamp != account.PasswordStamp(testHashB) {
		t.Fatalf("the other replica reads stamp %q (%v) after the change, %q before; want the new hash's", after.PasswordStamp, err, before.PasswordStamp)
	}
}

func requireHash(t *testing.T, rt *Runtime, name, want string) {
	t.Helper()
	if _, hash, err := rt.UserCredentials(t.Context(), name); err != nil || hash != want {
		t.Fatalf("%s's stored hash is %q (%v); want %q", name, hash, err, want)
	}
}
