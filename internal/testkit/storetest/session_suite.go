package storetest

import (
	"bytes"
	"crypto/rand"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/websession"
)

// RunSessions runs the console session contract (a server signing a
// browser in, checking and ending its session) against an adapter.
func RunSessions(t *testing.T, newFixture Factory) {
	tests := map[string]func(*testing.T, Fixture){
		"ASessionCreatedReadsBack":                             testSessionRoundTrip,
		"ASessionsTimesAreTheStoresClockNotTheCallers":         testSessionStoreClock,
		"ASessionEndsAtItsExpiryOnTheStoresClockAndItsRowGoes": testSessionExpiry,
		"SigningOutEndsTheSession":                             testSessionSignOut,
		"APasswordChangeEndsTheUsersOtherSessionsOnly":         testSessionEndOthers,
		"TheLastUseIsWrittenAtMostOncePerInterval":             testSessionSeen,
		"SigningInPastTheBoundEndsThatPrincipalsOldest":        testSessionBound,
		"ASigninDeletesExpiredSessions":                        testSessionExpiredDeleted,
		"SettingDisablingOrDeletingAUserEndsItsSessionsAtOnce": testSessionUserChangeEnds,
		"RevokingATokenEndsTheSessionsSignedInWithItAtOnce":    testSessionTokenRevokeEnds,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newFixture(t))
		})
	}
}

// sessionLifetime is the lifetime of the suite's sessions.
const sessionLifetime = time.Hour

func randomDigest(t *testing.T) []byte {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func userSignin(t *testing.T, userID string) websession.Signin {
	return websession.Signin{Digest: randomDigest(t), UserID: userID, Stamp: "stamp-1", Name: "alice", Scope: apitoken.Admin}
}

func createSession(t *testing.T, f Fixture, s websession.Signin) websession.Session {
	t.Helper()
	out, err := f.Sessions.SessionCreate(t.Context(), s, sessionLifetime, 20)
	if err != nil {
		t.Fatalf("create session: %v", err)
	}
	return out
}

// sessionGone asserts the session of digest is not found.
func sessionGone(t *testing.T, f Fixture, digest []byte) {
	t.Helper()
	got, err := f.Sessions.SessionByDigest(t.Context(), digest)
	if !qlerror.Is(err, qlerror.NotFound) {
		t.Fatalf("session %x: %+v, %v; want not found", digest[:4], got, err)
	}
}

// sessionLive asserts the session of digest is found.
func sessionLive(t *testing.T, f Fixture, digest []byte) websession.Session {
	t.Helper()
	got, err := f.Sessions.SessionByDigest(t.Context(), digest)
	if err != nil {
		t.Fatalf("session %x: %v; want it live", digest[:4], err)
	}
	return got
}

// ageSession moves a session's times back by d on the store's clock.
func ageSession(t *testing.T, f Fixture, digest []byte, d time.Duration) {
	t.Helper()
	if err := f.Tamper.AgeSession(t.Context(), digest, d.Milliseconds()); err != nil {
		t.Fatalf("age session: %v", err)
	}
}

func testSessionRoundTrip(t *testing.T, f Fixture) {
	user := userSignin(t, ids.New())
	token := websession.Signin{Digest: randomDigest(t), TokenDigest: apitoken.Digest("a token"), Name: "ci", Scope: apitoken.Read}
	for _, in := range []websession.Signin{user, token} {
		want := createSession(t, f, in)
		got := sessionLive(t, f, in.Digest)
		if !bytes.Equal(got.Digest, in.Digest) || got.UserID != in.UserID || got.Stamp != in.Stamp ||
			!bytes.Equal(got.TokenDigest, in.TokenDigest) || got.Name != in.Name || got.Scope != in.Scope ||
			got.CreatedAtMs != want.CreatedAtMs || got.LastSeenAtMs != want.CreatedAtMs || got.ExpiresAtMs != want.ExpiresAtMs {
			t.Fatalf("read back %+v; want %+v", got, want)
		}
	}
	sessionGone(t, f, randomDigest(t))
}

// The caller gives a lifetime and no time: the sign-in, last use and
// expiry are the store's clock (f.NowMs: the database's on PostgreSQL, the
// injected clock on SQLite, years from the wall clock a caller would read),
// so a server whose clock is off neither lengthens nor shortens a session.
func testSessionStoreClock(t *testing.T, f Fixture) {
	before, err := f.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	s := createSession(t, f, userSignin(t, ids.New()))
	after, err := f.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if s.CreatedAtMs < before || s.CreatedAtMs > after || s.LastSeenAtMs != s.CreatedAtMs || s.ExpiresAtMs != s.CreatedAtMs+sessionLifetime.Milliseconds() {
		t.Fatalf("signed in at %d, last use %d, expiry %d; want the store's clock between %d and %d and the expiry %v later",
			s.CreatedAtMs, s.LastSeenAtMs, s.ExpiresAtMs, before, after, sessionLifetime)
	}
	got := sessionLive(t, f, s.Digest)
	if got.ReadAtMs < after || got.ExpiresAtMs != s.ExpiresAtMs {
		t.Fatalf("read at %d with expiry %d; want the store's clock from %d on and expiry %d", got.ReadAtMs, got.ExpiresAtMs, after, s.ExpiresAtMs)
	}
}

func testSessionExpiry(t *testing.T, f Fixture) {
	s := createSession(t, f, userSignin(t, ids.New()))
	// A minute before its expiry on the store's clock it is live ...
	ageSession(t, f, s.Digest, sessionLifetime-time.Minute)
	sessionLive(t, f, s.Digest)
	// ... and once the store's clock reaches it, it is not.
	ageSession(t, f, s.Digest, time.Minute)
	sessionGone(t, f, s.Digest)
	// Read once expired, the row is deleted: moved back to live times, it
	// is still not found.
	ageSession(t, f, s.Digest, -sessionLifetime)
	sessionGone(t, f, s.Digest)
}

func testSessionSignOut(t *testing.T, f Fixture) {
	s, other := createSession(t, f, userSignin(t, ids.New())), createSession(t, f, userSignin(t, ids.New()))
	if err := f.Sessions.SessionEnd(t.Context(), s.Digest); err != nil {
		t.Fatalf("sign out: %v", err)
	}
	sessionGone(t, f, s.Digest)
	sessionLive(t, f, other.Digest)
	if err := f.Sessions.SessionEnd(t.Context(), s.Digest); err != nil {
		t.Fatalf("signing out twice: %v", err)
	}
}

func testSessionEndOthers(t *testing.T, f Fixture) {
	alice, bob := ids.New(), ids.New()
	kept, ended, theirs := createSession(t, f, userSignin(t, alice)), createSession(t, f, userSignin(t, alice)), createSession(t, f, userSignin(t, bob))
	if err := f.Sessions.SessionEndOthers(t.Context(), alice, kept.Digest); err != nil {
		t.Fatalf("end the others: %v", err)
	}
	sessionGone(t, f, ended.Digest)
	sessionLive(t, f, kept.Digest)
	sessionLive(t, f, theirs.Digest)
}

func testSessionSeen(t *testing.T, f Fixture) {
	s := createSession(t, f, userSignin(t, ids.New()))
	seen := func() int64 {
		t.Helper()
		if err := f.Sessions.SessionSeen(t.Context(), s.Digest); err != nil {
			t.Fatalf("seen: %v", err)
		}
		return sessionLive(t, f, s.Digest).LastSeenAtMs
	}
	// Just signed in: too soon, nothing written.
	if got := seen(); got != s.CreatedAtMs {
		t.Fatalf("a use right after sign-in wrote the last use %d; want it kept at the sign-in %d", got, s.CreatedAtMs)
	}
	// An interval on (on the store's clock): written, at the store's now.
	ageSession(t, f, s.Digest, websession.SeenEvery)
	before, err := f.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	written := seen()
	if written < before {
		t.Fatalf("a use an interval after the last wrote %d; want the store's now, from %d on", written, before)
	}
	// Too soon again.
	if got := seen(); got != written {
		t.Fatalf("a second use within the interval wrote %d; want %d kept", got, written)
	}
}

func testSessionBound(t *testing.T, f Fixture) {
	alice, bob := ids.New(), ids.New()
	theirs := createSession(t, f, userSignin(t, bob))
	var mine []websession.Session
	for i := range 3 {
		s, err := f.Sessions.SessionCreate(t.Context(), userSignin(t, alice), sessionLifetime, 2)
		if err != nil {
			t.Fatalf("sign-in %d: %v", i, err)
		}
		// Each earlier sign-in a second older, so that their order does
		// not rest on the clock having moved between two of them.
		for _, m := range mine {
			ageSession(t, f, m.Digest, time.Second)
		}
		mine = append(mine, s)
	}
	sessionGone(t, f, mine[0].Digest)
	for _, s := range append(mine[1:], theirs) {
		sessionLive(t, f, s.Digest)
	}
}

func testSessionExpiredDeleted(t *testing.T, f Fixture) {
	old := createSession(t, f, userSignin(t, ids.New()))
	ageSession(t, f, old.Digest, sessionLifetime)
	// A later sign-in of someone else deletes its row: moved back to live
	// times, it is not found.
	createSession(t, f, userSignin(t, ids.New()))
	ageSession(t, f, old.Digest, -sessionLifetime)
	sessionGone(t, f, old.Digest)
}

// `ql users passwd|disable|delete` delete the user's session rows with the
// change, so no server finds them again; another user's stay. A row the
// store no longer finds is gone, whatever its user's state (the console
// checks that apart).
func testSessionUserChangeEnds(t *testing.T, f Fixture) {
	changes := map[string]func(name string) error{
		"passwd":  func(name string) error { return f.Users.UserSetPassword(t.Context(), name, hashB, "tester") },
		"disable": func(name string) error { return errOnly(f.Users.UserDisable(t.Context(), name, "tester")) },
		"delete":  func(name string) error { return f.Users.UserDelete(t.Context(), name, "tester") },
	}
	other := createUser(t, f, "bystander", account.Viewer)
	kept := createSession(t, f, userSignin(t, other.ID))
	for what, change := range changes {
		u := createUser(t, f, "user-"+what, account.Operator)
		a, b := createSession(t, f, userSignin(t, u.ID)), createSession(t, f, userSignin(t, u.ID))
		if err := change(u.Name); err != nil {
			t.Fatalf("%s %s: %v", what, u.Name, err)
		}
		sessionGone(t, f, a.Digest)
		sessionGone(t, f, b.Digest)
		sessionLive(t, f, kept.Digest)
	}
}

func testSessionTokenRevokeEnds(t *testing.T, f Fixture) {
	secret, _, err := apitoken.Create(t.Context(), f.Tokens, "tester", ids.New(), "deploy", apitoken.Operate, 0)
	if err != nil {
		t.Fatal(err)
	}
	otherSecret, _, err := apitoken.Create(t.Context(), f.Tokens, "tester", ids.New(), "ci", apitoken.Read, 0)
	if err != nil {
		t.Fatal(err)
	}
	tokenSignin := func(secret, name string) websession.Session {
		return createSession(t, f, websession.Signin{Digest: randomDigest(t), TokenDigest: apitoken.Digest(secret), Name: name, Scope: apitoken.Read})
	}
	a, b, kept := tokenSignin(secret, "deploy"), tokenSignin(secret, "deploy"), tokenSignin(otherSecret, "ci")
	if err := f.Tokens.TokenRevoke(t.Context(), "deploy", "tester"); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	sessionGone(t, f, a.Digest)
	sessionGone(t, f, b.Digest)
	sessionLive(t, f, kept.Digest)
}
