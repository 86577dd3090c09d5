package storetest

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// The secrets of these tests: the store keeps them as given (base32, as
// account.NewTwoStepSecret draws them).
const (
	twoStepSecretA = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	twoStepSecretB = "KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU"
)

func twoStepStore(t *testing.T, f Fixture) account.TwoStepStore {
	t.Helper()
	ts, ok := f.UserAuth.(account.TwoStepStore)
	if !ok {
		t.Fatalf("%T does not keep two-step secrets (account.TwoStepStore)", f.UserAuth)
	}
	return ts
}

func requireTwoStep(t *testing.T, ts account.TwoStepStore, userID string, want account.TwoStep) {
	t.Helper()
	got, err := ts.TwoStepOf(t.Context(), userID)
	if err != nil || got != want {
		t.Fatalf("two-step %+v (%v); want %+v", got, err, want)
	}
}

// turnTwoStepOn begins and confirms secret A for u at step with the
// recovery codes' digests.
func turnTwoStepOn(t *testing.T, ts account.TwoStepStore, u account.User, step int64, codes []string) {
	t.Helper()
	if err := ts.TwoStepBegin(t.Context(), u.ID, twoStepSecretA); err != nil {
		t.Fatal(err)
	}
	if err := ts.TwoStepConfirm(t.Context(), u.ID, u.Name, "console:user:"+u.Name, twoStepSecretA, step, codes); err != nil {
		t.Fatal(err)
	}
}

func digests(codes ...string) []string {
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = account.RecoveryDigest(c)
	}
	return out
}

// testTwoStepOnOnlyOnceConfirmed: a secret begun waits, off, until a
// confirmation names that very secret; a secret begun again replaces the
// waiting one; once on, neither a new secret nor a second confirmation
// replaces it.
func testTwoStepOnOnlyOnceConfirmed(t *testing.T, f Fixture) {
	ts := twoStepStore(t, f)
	u := createUser(t, f, "alice", account.Operator)
	ctx := t.Context()
	requireTwoStep(t, ts, u.ID, account.TwoStep{})
	requireCode(t, ts.TwoStepConfirm(ctx, u.ID, "alice", "tester", twoStepSecretA, 10, nil), qlerror.Conflict, "a confirmation with nothing begun")
	if err := ts.TwoStepBegin(ctx, u.ID, twoStepSecretA); err != nil {
		t.Fatal(err)
	}
	if err := ts.TwoStepBegin(ctx, u.ID, twoStepSecretB); err != nil {
		t.Fatal(err)
	}
	requireTwoStep(t, ts, u.ID, account.TwoStep{Secret: twoStepSecretB})
	err := ts.TwoStepConfirm(ctx, u.ID, "alice", "tester", twoStepSecretA, 10, digests("aaaaa-aaaaa"))
	if qlerror.ReasonOf(err) != account.RefusalTwoStepNotBegun {
		t.Fatalf("a confirmation of the secret replaced: %v; want %s", err, account.RefusalTwoStepNotBegun)
	}
	requireTwoStep(t, ts, u.ID, account.TwoStep{Secret: twoStepSecretB})
	if err := ts.TwoStepConfirm(ctx, u.ID, "alice", "tester", twoStepSecretB, 10, digests("aaaaa-aaaaa", "bbbbb-bbbbb")); err != nil {
		t.Fatal(err)
	}
	on := account.TwoStep{Secret: twoStepSecretB, On: true, LastStep: 10, RecoveryLeft: 2}
	requireTwoStep(t, ts, u.ID, on)
	for what, err := range map[string]error{
		"a secret begun while on": ts.TwoStepBegin(ctx, u.ID, twoStepSecretA),
		"a confirmation while on": ts.TwoStepConfirm(ctx, u.ID, "alice", "tester", twoStepSecretB, 11, nil),
	} {
		if qlerror.ReasonOf(err) != account.RefusalTwoStepOn {
			t.Fatalf("%s: %v; want %s", what, err, account.RefusalTwoStepOn)
		}
	}
	requireTwoStep(t, ts, u.ID, on)
}

// testTwoStepStepUsedOnce: a code's time step is accepted once, and never
// a step older than one accepted, the confirming code's included: a
// code seen over a shoulder or sent twice does not sign in again.
func testTwoStepStepUsedOnce(t *testing.T, f Fixture) {
	ts := twoStepStore(t, f)
	u := createUser(t, f, "bob", account.Viewer)
	ctx := t.Context()
	if used, err := ts.TwoStepUseStep(ctx, u.ID, 5); err != nil || used {
		t.Fatalf("a step of a user without two-step: %v, %v; want refused", used, err)
	}
	turnTwoStepOn(t, ts, u, 100, nil)
	for _, c := range []struct {
		step int64
		want bool
	}{{100, false}, {101, true}, {101, false}, {100, false}, {103, true}, {102, false}} {
		if used, err := ts.TwoStepUseStep(ctx, u.ID, c.step); err != nil || used != c.want {
			t.Fatalf("step %d: accepted %v (%v); want %v", c.step, used, err, c.want)
		}
	}
	requireTwoStep(t, ts, u.ID, account.TwoStep{Secret: twoStepSecretA, On: true, LastStep: 103})
}

// testTwoStepRecoveryUsedOnce: a recovery code signs in once, and is
// audited when it does; one never given does nothing.
func testTwoStepRecoveryUsedOnce(t *testing.T, f Fixture) {
	ts := twoStepStore(t, f)
	u := createUser(t, f, "carol", account.Viewer)
	ctx := t.Context()
	turnTwoStepOn(t, ts, u, 1, digests("aaaaa-aaaaa", "bbbbb-bbbbb"))
	for _, c := range []struct {
		code string
		want bool
	}{{"AAAAA AAAAA", true}, {"aaaaa-aaaaa", false}, {"ccccc-ccccc", false}, {"bbbbbbbbbb", true}} {
		if used, err := ts.TwoStepUseRecovery(ctx, u.ID, "carol", "console:user:carol@192.0.2.1", account.RecoveryDigest(c.code)); err != nil || used != c.want {
			t.Fatalf("recovery code %q: used %v (%v); want %v", c.code, used, err, c.want)
		}
	}
	requireTwoStep(t, ts, u.ID, account.TwoStep{Secret: twoStepSecretA, On: true, LastStep: 1})
	lines := auditLines(auditAll(t, f, audit.Query{}))
	want := []string{
		"user.recovery_code_used console:user:carol@192.0.2.1 user carol  ",
		"user.recovery_code_used console:user:carol@192.0.2.1 user carol  ",
		"user.two_step_enabled console:user:carol user carol  ",
	}
	if !slices.Equal(lines[:3], want) {
		t.Fatalf("trail %q; want it to start %q", lines, want)
	}
}

// testTwoStepOffForgets: turning two-step off forgets its secret and
// recovery codes (no code of the old app nor a recovery code works
// after), is audited, and refuses when it is not on; deleting the user
// forgets them too.
func testTwoStepOffForgets(t *testing.T, f Fixture) {
	ts := twoStepStore(t, f)
	u := createUser(t, f, "dave", account.Viewer)
	ctx := t.Context()
	turnTwoStepOn(t, ts, u, 1, digests("aaaaa-aaaaa"))
	if err := ts.TwoStepOff(ctx, u.ID, "dave", "console:user:dave"); err != nil {
		t.Fatal(err)
	}
	requireTwoStep(t, ts, u.ID, account.TwoStep{})
	if qlerror.ReasonOf(ts.TwoStepOff(ctx, u.ID, "dave", "tester")) != account.RefusalTwoStepOff {
		t.Fatal("turning off a two-step that is off was not refused as two_step_not_on")
	}
	if used, err := ts.TwoStepUseRecovery(ctx, u.ID, "dave", "tester", account.RecoveryDigest("aaaaa-aaaaa")); err != nil || used {
		t.Fatalf("a recovery code after two-step was turned off: used %v (%v)", used, err)
	}
	if used, err := ts.TwoStepUseStep(ctx, u.ID, 2); err != nil || used {
		t.Fatalf("a code after two-step was turned off: accepted %v (%v)", used, err)
	}
	if lines := auditLines(auditAll(t, f, audit.Query{})); lines[0] != "user.two_step_disabled console:user:dave user dave  " {
		t.Fatalf("trail %q; want the disable last", lines)
	}
	turnTwoStepOn(t, ts, u, 3, digests("aaaaa-aaaaa"))
	if err := f.Users.UserDelete(ctx, "dave", "tester"); err != nil {
		t.Fatal(err)
	}
	requireTwoStep(t, ts, u.ID, account.TwoStep{})
}

// testTwoStepReset: an operator's reset turns a user's two-step off, ends
// its sessions and is audited; a secret waiting is forgotten and said to
// be, nothing recorded; a user without two-step is left as it is, nothing
// recorded, and a missing name is NotFound.
func testTwoStepReset(t *testing.T, f Fixture) {
	ts := twoStepStore(t, f)
	u := createUser(t, f, "erin", account.Operator)
	other := createUser(t, f, "fred", account.Operator)
	ctx := t.Context()
	turnTwoStepOn(t, ts, u, 1, digests("aaaaa-aaaaa"))
	turnTwoStepOn(t, ts, other, 1, nil)
	erins, freds := createSession(t, f, userSignin(t, u.ID)), createSession(t, f, userSignin(t, other.ID))
	if reset, err := f.Users.UserResetTwoStep(ctx, "erin", "root"); err != nil || reset != account.ResetOn {
		t.Fatalf("reset: %v, %v; want it turned off", reset, err)
	}
	requireTwoStep(t, ts, u.ID, account.TwoStep{})
	requireTwoStep(t, ts, other.ID, account.TwoStep{Secret: twoStepSecretA, On: true, LastStep: 1})
	sessionGone(t, f, erins.Digest)
	sessionLive(t, f, freds.Digest)
	if reset, err := f.Users.UserResetTwoStep(ctx, "erin", "root"); err != nil || reset != account.ResetNothing {
		t.Fatalf("a second reset: %v, %v; want nothing done", reset, err)
	}
	if err := ts.TwoStepBegin(ctx, u.ID, twoStepSecretB); err != nil {
		t.Fatal(err)
	}
	if reset, err := f.Users.UserResetTwoStep(ctx, "erin", "root"); err != nil || reset != account.ResetWaiting {
		t.Fatalf("a reset of a secret waiting: %v, %v; want the waiting secret forgotten", reset, err)
	}
	requireTwoStep(t, ts, u.ID, account.TwoStep{})
	_, err := f.Users.UserResetTwoStep(ctx, "nobody", "root")
	requireCode(t, err, qlerror.NotFound, "a reset of no user")
	resets := auditLines(auditAll(t, f, audit.Query{Action: audit.UserTwoStepReset}))
	if want := []string{"user.two_step_reset root user erin  "}; !slices.Equal(resets, want) {
		t.Fatalf("resets recorded %q; want %q", resets, want)
	}
}
