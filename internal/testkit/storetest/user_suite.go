package storetest

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RunUsers runs the console account contract (`ql users`, and a server
// signing a user in) against an adapter.
func RunUsers(t *testing.T, newFixture Factory) {
	tests := map[string]func(*testing.T, Fixture){
		"AUserIsFoundByNameWithItsHashAndByID":           testUserRoundTrip,
		"ANameIsUniqueUntilTheUserIsDeleted":             testUserNameUnique,
		"DisablingKeepsTheUserAndRefusesAMissingName":    testUserDisable,
		"APasswordChangeReplacesTheHash":                 testUserPassword,
		"EnablingGivesANewPasswordSoNoOldSessionReturns": testUserEnable,
		"APasswordChangeEndsTheUsersSessions":            testUserPasswordEndsSessions,
		"TheLastSigninOnlyMovesForwardAndIsListed":       testUserSignedIn,
		"ChangesToAMissingUserAreNotFoundAndChangeNoOne": testUserMissing,
		"TheFirstOwnerIsCreatedOnlyWhileNoUserExists":    testUserFirstOnlyWhileNone,
		"OfTwoFirstOwnersAtOnceExactlyOneIsCreated":      testUserFirstOnce,
		"AUsersOwnPasswordChangeRefusesAStaleHash":       testUserOwnPasswordStale,
		"AUsersProjectsAreKeptAndAnOwnerIsNeverBound":    testUserProjects,
		"TwoStepIsOnOnlyOnceItsWaitingSecretIsConfirmed": testTwoStepOnOnlyOnceConfirmed,
		"ATwoStepCodesTimeStepIsAcceptedOnce":            testTwoStepStepUsedOnce,
		"ARecoveryCodeSignsInOnceAndIsAudited":           testTwoStepRecoveryUsedOnce,
		"TurningTwoStepOffForgetsItsSecretAndCodes":      testTwoStepOffForgets,
		"AResetTurnsTwoStepOffAndEndsTheUsersSessions":   testTwoStepReset,
		"TheUserListSaysWhoseTwoStepIsOn":                testUserListSaysWhoseTwoStepIsOn,
		"ASecondStepIsUsedOnceUntilItEnds":               testPendingStepUsedOnceUntilItEnds,
		"TwoStepRequiredIsOneSettingForEveryUser":        testTwoStepRequiredIsOneSettingForEveryUser,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newFixture(t))
		})
	}
}

// Store tests store hashes as given: hashing is the account package's,
// and a real Argon2id hash per case would only slow the suite.
const (
	hashA = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$a2V5QQ"
	hashB = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$a2V5Qg"
)

func createUser(t *testing.T, f Fixture, name string, role account.Role) account.User {
	t.Helper()
	u, err := f.Users.UserCreate(t.Context(), account.NewUser{ID: ids.New(), Name: name, Role: role, Hash: hashA})
	if err != nil {
		t.Fatalf("create user %s: %v", name, err)
	}
	return u
}

func testUserRoundTrip(t *testing.T, f Fixture) {
	created := createUser(t, f, "alice", account.Owner)
	if created.CreatedAtMs <= 0 || created.DisabledAtMs != nil {
		t.Fatalf("created %+v", created)
	}
	got, hash, err := f.UserAuth.UserCredentials(t.Context(), "alice")
	if err != nil || got.ID != created.ID || got.Role != account.Owner || got.CreatedAtMs != created.CreatedAtMs || hash != hashA || got.State() != account.StateActive {
		t.Fatalf("credentials: %+v %q %v; want %+v", got, hash, err, created)
	}
	byID, err := f.UserAuth.UserByID(t.Context(), created.ID)
	if err != nil || byID.Name != "alice" || byID.Role != account.Owner {
		t.Fatalf("by id: %+v %v", byID, err)
	}
	_, _, err = f.UserAuth.UserCredentials(t.Context(), "bob")
	requireCode(t, err, qlerror.NotFound, "an unknown name")
}

func testUserNameUnique(t *testing.T, f Fixture) {
	first := createUser(t, f, "ops", account.Viewer)
	_, err := f.Users.UserCreate(t.Context(), account.NewUser{ID: ids.New(), Name: "ops", Role: account.Owner, Hash: hashA})
	requireCode(t, err, qlerror.Conflict, "a second user of one name")
	if err := f.Users.UserDelete(t.Context(), "ops", "tester"); err != nil {
		t.Fatal(err)
	}
	_, err = f.UserAuth.UserByID(t.Context(), first.ID)
	requireCode(t, err, qlerror.NotFound, "a deleted user by id")
	again := createUser(t, f, "ops", account.Operator)
	got, _, err := f.UserAuth.UserCredentials(t.Context(), "ops")
	if err != nil || got.ID != again.ID || got.Role != account.Operator {
		t.Fatalf("the new user of a reused name: %+v %v", got, err)
	}
}

func testUserDisable(t *testing.T, f Fixture) {
	u := createUser(t, f, "temp", account.Operator)
	for range 2 {
		if err := errOnly(f.Users.UserDisable(t.Context(), "temp", "tester")); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.UserAuth.UserByID(t.Context(), u.ID)
	if err != nil || got.DisabledAtMs == nil || *got.DisabledAtMs < got.CreatedAtMs || got.State() != account.StateDisabled {
		t.Fatalf("disabled user: %+v %v", got, err)
	}
	list, err := f.Users.UserList(t.Context())
	if err != nil || len(list) != 1 || list[0].State() != account.StateDisabled {
		t.Fatalf("list: %+v %v", list, err)
	}
}

// A disabled user enabled again is active with the new hash; a session
// from before the disable (its stamp the old hash's) no longer matches,
// and another user is untouched.
func testUserEnable(t *testing.T, f Fixture) {
	u := createUser(t, f, "heidi", account.Operator)
	createUser(t, f, "ivan", account.Operator)
	signedIn, _, err := f.UserAuth.UserCredentials(t.Context(), "heidi")
	if err != nil {
		t.Fatal(err)
	}
	if err := errOnly(f.Users.UserDisable(t.Context(), "heidi", "tester")); err != nil {
		t.Fatal(err)
	}
	if err := errOnly(f.Users.UserEnable(t.Context(), "heidi", hashB, "tester")); err != nil {
		t.Fatal(err)
	}
	got, err := f.UserAuth.UserByID(t.Context(), u.ID)
	if err != nil || got.State() != account.StateActive || got.DisabledAtMs != nil || got.PasswordStamp != account.PasswordStamp(hashB) || got.PasswordStamp == signedIn.PasswordStamp {
		t.Fatalf("the enabled user: %+v %v; want it active with the new hash's stamp, not the old session's", got, err)
	}
	if other, hash, err := f.UserAuth.UserCredentials(t.Context(), "ivan"); err != nil || other.State() != account.StateActive || hash != hashA {
		t.Fatalf("another user changed: %+v %q %v", other, hash, err)
	}
	requireCode(t, errOnly(f.Users.UserEnable(t.Context(), "nobody", hashB, "tester")), qlerror.NotFound, "enabling a missing user")
}

func testUserPassword(t *testing.T, f Fixture) {
	createUser(t, f, "carol", account.Viewer)
	if err := f.Users.UserSetPassword(t.Context(), "carol", hashB, "tester"); err != nil {
		t.Fatal(err)
	}
	if _, hash, err := f.UserAuth.UserCredentials(t.Context(), "carol"); err != nil || hash != hashB {
		t.Fatalf("after the change: %q %v, want the new hash", hash, err)
	}
}

// A console session keeps the stamp UserCredentials gave at sign-in and
// ends once UserByID gives another: recording the sign-in keeps it, a new
// password changes it, and another user's new password does not.
func testUserPasswordEndsSessions(t *testing.T, f Fixture) {
	u := createUser(t, f, "frank", account.Operator)
	createUser(t, f, "grace", account.Operator)
	signedIn, hash, err := f.UserAuth.UserCredentials(t.Context(), "frank")
	if err != nil || signedIn.PasswordStamp != account.PasswordStamp(hash) {
		t.Fatalf("sign-in: stamp %q of hash %q (%v), want the hash's stamp", signedIn.PasswordStamp, hash, err)
	}
	if err := f.UserAuth.UserSignedIn(t.Context(), u.ID, u.CreatedAtMs+1); err != nil {
		t.Fatal(err)
	}
	if err := f.Users.UserSetPassword(t.Context(), "grace", hashB, "tester"); err != nil {
		t.Fatal(err)
	}
	if got, err := f.UserAuth.UserByID(t.Context(), u.ID); err != nil || got.PasswordStamp != signedIn.PasswordStamp {
		t.Fatalf("the session's check before a new password: stamp %q (%v), want the sign-in's %q", got.PasswordStamp, err, signedIn.PasswordStamp)
	}
	if err := f.Users.UserSetPassword(t.Context(), "frank", hashB, "tester"); err != nil {
		t.Fatal(err)
	}
	got, err := f.UserAuth.UserByID(t.Context(), u.ID)
	if err != nil || got.PasswordStamp != account.PasswordStamp(hashB) || got.PasswordStamp == signedIn.PasswordStamp || got.State() != account.StateActive {
		t.Fatalf("the session's check after a new password: %+v %v, want the active user with the new hash's stamp", got, err)
	}
}

func testUserSignedIn(t *testing.T, f Fixture) {
	u := createUser(t, f, "dave", account.Viewer)
	at := u.CreatedAtMs + 5_000
	for _, ms := range []int64{at, at - 1_000} {
		if err := f.UserAuth.UserSignedIn(t.Context(), u.ID, ms); err != nil {
			t.Fatal(err)
		}
	}
	list, err := f.Users.UserList(t.Context())
	if err != nil || len(list) != 1 || list[0].LastSigninAtMs == nil || *list[0].LastSigninAtMs != at {
		t.Fatalf("list: %+v %v; want the last sign-in at %d", list, err, at)
	}
}

func testUserMissing(t *testing.T, f Fixture) {
	createUser(t, f, "erin", account.Viewer)
	requireCode(t, errOnly(f.Users.UserDisable(t.Context(), "nobody", "tester")), qlerror.NotFound, "disabling a missing user")
	requireCode(t, f.Users.UserDelete(t.Context(), "nobody", "tester"), qlerror.NotFound, "deleting a missing user")
	requireCode(t, f.Users.UserSetPassword(t.Context(), "nobody", hashB, "tester"), qlerror.NotFound, "a missing user's password")
	got, hash, err := f.UserAuth.UserCredentials(t.Context(), "erin")
	if err != nil || got.State() != account.StateActive || hash != hashA {
		t.Fatalf("another user changed: %+v %q %v", got, hash, err)
	}
}
