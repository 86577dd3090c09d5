package storetest

import (
	"bytes"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// pendingStepLifetime is the second step's window, as the console gives
// it.
const pendingStepLifetime = 5 * time.Minute

func createPendingStep(t *testing.T, ts account.TwoStepStore, userID string, lifetime time.Duration) account.PendingStep {
	t.Helper()
	p := account.PendingStep{Digest: randomDigest(t), UserID: userID, Stamp: "stamp-" + userID, Browser: randomDigest(t)}
	if err := ts.PendingStepCreate(t.Context(), p, lifetime); err != nil {
		t.Fatalf("store a second step: %v", err)
	}
	return p
}

func pendingStepGone(t *testing.T, ts account.TwoStepStore, digest []byte, what string) {
	t.Helper()
	_, err := ts.PendingStepOf(t.Context(), digest)
	requireCode(t, err, qlerror.NotFound, what)
	if used, err := ts.PendingStepUse(t.Context(), digest); err != nil || used {
		t.Fatalf("%s: used %v (%v); want nothing to use", what, used, err)
	}
}

// testPendingStepUsedOnceUntilItEnds: a sign-in's second step is read
// back as stored, ending its lifetime after the store's clock's now (the
// database's on PostgreSQL), and is used once: a second use, or a read
// after it, finds nothing. One whose end has come is neither read nor
// used, and deleting the account deletes its steps.
func testPendingStepUsedOnceUntilItEnds(t *testing.T, f Fixture) {
	ts := twoStepStore(t, f)
	u := createUser(t, f, "gina", account.Operator)
	ctx := t.Context()
	before, err := f.NowMs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := createPendingStep(t, ts, u.ID, pendingStepLifetime)
	after, err := f.NowMs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ts.PendingStepOf(ctx, p.Digest)
	if err != nil || !bytes.Equal(got.Digest, p.Digest) || got.UserID != u.ID || got.Stamp != p.Stamp || !bytes.Equal(got.Browser, p.Browser) ||
		got.ExpiresAtMs < before+pendingStepLifetime.Milliseconds() || got.ExpiresAtMs > after+pendingStepLifetime.Milliseconds() {
		t.Fatalf("read back %+v (%v); want %+v ending %s after a time within [%d, %d]", got, err, p, pendingStepLifetime, before, after)
	}
	other := createPendingStep(t, ts, u.ID, pendingStepLifetime)
	if used, err := ts.PendingStepUse(ctx, p.Digest); err != nil || !used {
		t.Fatalf("the first use: %v (%v); want used", used, err)
	}
	pendingStepGone(t, ts, p.Digest, "a second step used already")
	if _, err := ts.PendingStepOf(ctx, other.Digest); err != nil {
		t.Fatalf("another step of the same user after one was used: %v; want it kept", err)
	}
	ended := createPendingStep(t, ts, u.ID, 0)
	pendingStepGone(t, ts, ended.Digest, "a second step whose end has come")
	pendingStepGone(t, ts, randomDigest(t), "a ticket never stored")
	if err := f.Users.UserDelete(ctx, "gina", "tester"); err != nil {
		t.Fatal(err)
	}
	pendingStepGone(t, ts, other.Digest, "a second step of a deleted user")
}
