package console

import (
	"fmt"
	"testing"
)

func tokenSession(id, token string) *session {
	return &session{id: id, digest: []byte(token), expiresMs: 1 << 62}
}

// A full session table ends the one session used least recently for each
// new one, never a batch of them.
func TestAFullSessionTableEndsTheLeastRecentlyUsedSessionOneAtATime(t *testing.T) {
	tab := newSessionTable(maxSessions, maxSessionsPerPrincipal)
	for i := range maxSessions {
		tab.add(tokenSession(fmt.Sprint("s-", i), fmt.Sprint("token-", i)))
	}
	if s, _ := tab.get("s-0", 0, DefaultSessionIdle.Milliseconds()); s == nil {
		t.Fatal("the first session is gone before the table was full")
	}
	tab.add(tokenSession("newcomer", "newcomer-token"))
	if n := tab.len(); n != maxSessions {
		t.Fatalf("%d sessions after one sign-in into a full table, want %d", n, maxSessions)
	}
	if s, _ := tab.get("s-1", 0, DefaultSessionIdle.Milliseconds()); s != nil {
		t.Fatal("the least recently used session was kept")
	}
	for _, id := range []string{"s-0", "s-2", fmt.Sprint("s-", maxSessions-1), "newcomer"} {
		if s, _ := tab.get(id, 0, DefaultSessionIdle.Milliseconds()); s == nil {
			t.Errorf("session %s ended, though another was used less recently", id)
		}
	}
}
