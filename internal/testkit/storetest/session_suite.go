package storetest

import (
	"bytes"
	"crypto/rand"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/websession"
)

// RunSessions runs the console session contract (a server signing a
// browser in, checking and ending its session) against an adapter.
func RunSessions(t *testing.T, newFixture Factory) {
	tests := map[string]func(*testing.T, Fixture){
		"ASessionCreatedReadsBack":                      testSessionRoundTrip,
		"ASessionEndsAtItsExpiryAndItsRowGoes":          testSessionExpiry,
		"SigningOutEndsTheSession":                      testSessionSignOut,
		"APasswordChangeEndsTheUsersOtherSessionsOnly":  testSessionEndOthers,
		"TheLastUseIsWrittenAtMostOncePerInterval":      testSessionSeen,
		"SigningInPastTheBoundEndsThatPrincipalsOldest": testSessionBound,
		"ASigninDeletesExpiredSessions":                 testSessionExpiredDeleted,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newFixture(t))
		})
	}
}

// sessionBase is the sign-in time of the suite's sessions: the store takes
// the console's times as given.
const sessionBase = int64(1_800_000_000_000)

func randomDigest(t *testing.T) []byte {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func userSession(t *testing.T, userID string, atMs int64) websession.Session {
	return websession.Session{Digest: randomDigest(t), UserID: userID, Stamp: "stamp-1", Name: "alice", Scope: apitoken.Admin,
		CreatedAtMs: atMs, LastSeenAtMs: atMs, ExpiresAtMs: atMs + 3_600_000}
}

func createSession(t *testing.T, f Fixture, s websession.Session) {
	t.Helper()
	if err := f.Sessions.SessionCreate(t.Context(), s, 20); err != nil {
		t.Fatalf("create session: %v", err)
	}
}

// sessionGone asserts the session of digest is not found at nowMs.
func sessionGone(t *testing.T, f Fixture, digest []byte, nowMs int64) {
	t.Helper()
	got, err := f.Sessions.SessionByDigest(t.Context(), digest, nowMs)
	if !qlerror.Is(err, qlerror.NotFound) {
		t.Fatalf("session at %d: %+v, %v; want not found", nowMs, got, err)
	}
}

func testSessionRoundTrip(t *testing.T, f Fixture) {
	user := userSession(t, ids.New(), sessionBase)
	token := websession.Session{Digest: randomDigest(t), TokenDigest: apitoken.Digest("a token"), Name: "ci", Scope: apitoken.Read,
		CreatedAtMs: sessionBase, LastSeenAtMs: sessionBase, ExpiresAtMs: sessionBase + 60_000}
	for _, want := range []websession.Session{user, token} {
		createSession(t, f, want)
		got, err := f.Sessions.SessionByDigest(t.Context(), want.Digest, sessionBase+1)
		if err != nil || !bytes.Equal(got.Digest, want.Digest) || got.UserID != want.UserID || got.Stamp != want.Stamp ||
			!bytes.Equal(got.TokenDigest, want.TokenDigest) || got.Name != want.Name || got.Scope != want.Scope ||
			got.CreatedAtMs != want.CreatedAtMs || got.LastSeenAtMs != want.CreatedAtMs || got.ExpiresAtMs != want.ExpiresAtMs {
			t.Fatalf("read back %+v, %v; want %+v", got, err, want)
		}
	}
	sessionGone(t, f, randomDigest(t), sessionBase+1)
}

func testSessionExpiry(t *testing.T, f Fixture) {
	s := userSession(t, ids.New(), sessionBase)
	createSession(t, f, s)
	if _, err := f.Sessions.SessionByDigest(t.Context(), s.Digest, s.ExpiresAtMs-1); err != nil {
		t.Fatalf("a moment before its expiry: %v", err)
	}
	sessionGone(t, f, s.Digest, s.ExpiresAtMs)
	// Read once expired, the row is deleted: a clock read as earlier (another
	// replica's, behind) no longer finds it.
	sessionGone(t, f, s.Digest, s.ExpiresAtMs-1)
}

func testSessionSignOut(t *testing.T, f Fixture) {
	s, other := userSession(t, ids.New(), sessionBase), userSession(t, ids.New(), sessionBase)
	createSession(t, f, s)
	createSession(t, f, other)
	if err := f.Sessions.SessionEnd(t.Context(), s.Digest); err != nil {
		t.Fatalf("sign out: %v", err)
	}
	sessionGone(t, f, s.Digest, sessionBase+1)
	if _, err := f.Sessions.SessionByDigest(t.Context(), other.Digest, sessionBase+1); err != nil {
		t.Fatalf("another user's session after the sign-out: %v", err)
	}
	if err := f.Sessions.SessionEnd(t.Context(), s.Digest); err != nil {
		t.Fatalf("signing out twice: %v", err)
	}
}

func testSessionEndOthers(t *testing.T, f Fixture) {
	alice, bob := ids.New(), ids.New()
	kept, ended, theirs := userSession(t, alice, sessionBase), userSession(t, alice, sessionBase+1), userSession(t, bob, sessionBase)
	for _, s := range []websession.Session{kept, ended, theirs} {
		createSession(t, f, s)
	}
	if err := f.Sessions.SessionEndOthers(t.Context(), alice, kept.Digest); err != nil {
		t.Fatalf("end the others: %v", err)
	}
	sessionGone(t, f, ended.Digest, sessionBase+2)
	for _, s := range []websession.Session{kept, theirs} {
		if _, err := f.Sessions.SessionByDigest(t.Context(), s.Digest, sessionBase+2); err != nil {
			t.Fatalf("session of %s kept: %v", s.UserID, err)
		}
	}
}

func testSessionSeen(t *testing.T, f Fixture) {
	s := userSession(t, ids.New(), sessionBase)
	createSession(t, f, s)
	every := websession.SeenEvery.Milliseconds()
	steps := []struct{ atMs, want int64 }{
		{sessionBase + every - 1, sessionBase},         // too soon: not written
		{sessionBase + every, sessionBase + every},     // an interval on: written
		{sessionBase + every + 1, sessionBase + every}, // too soon again
	}
	for _, st := range steps {
		if err := f.Sessions.SessionSeen(t.Context(), s.Digest, st.atMs); err != nil {
			t.Fatalf("seen at %d: %v", st.atMs, err)
		}
		got, err := f.Sessions.SessionByDigest(t.Context(), s.Digest, st.atMs)
		if err != nil || got.LastSeenAtMs != st.want {
			t.Fatalf("seen at %d: last use %d, %v; want %d", st.atMs, got.LastSeenAtMs, err, st.want)
		}
	}
}

func testSessionBound(t *testing.T, f Fixture) {
	alice, bob := ids.New(), ids.New()
	theirs := userSession(t, bob, sessionBase)
	createSession(t, f, theirs)
	var mine []websession.Session
	for i := range 3 {
		s := userSession(t, alice, sessionBase+int64(i))
		if err := f.Sessions.SessionCreate(t.Context(), s, 2); err != nil {
			t.Fatalf("sign-in %d: %v", i, err)
		}
		mine = append(mine, s)
	}
	sessionGone(t, f, mine[0].Digest, sessionBase+10)
	for _, s := range append(mine[1:], theirs) {
		if _, err := f.Sessions.SessionByDigest(t.Context(), s.Digest, sessionBase+10); err != nil {
			t.Fatalf("session of %s signed in at %d: %v", s.UserID, s.CreatedAtMs, err)
		}
	}
}

func testSessionExpiredDeleted(t *testing.T, f Fixture) {
	old := userSession(t, ids.New(), sessionBase)
	createSession(t, f, old)
	// A later sign-in of someone else, after old's expiry, deletes its row:
	// read back at a time before that expiry, it is gone.
	createSession(t, f, userSession(t, ids.New(), old.ExpiresAtMs))
	sessionGone(t, f, old.Digest, sessionBase+1)
}
