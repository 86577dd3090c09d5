package sqlitestore

import (
	"path/filepath"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/websession"
)

// A backup holds no console session: a server restored from it does not
// bring back a session signed out since the copy was taken.
func TestABackupHoldsNoConsoleSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	now := e.clock.NowMs()
	s := websession.Session{Digest: websession.Digest("cookie token"), UserID: ids.New(), Stamp: "stamp", Name: "alice", Scope: apitoken.Admin,
		CreatedAtMs: now, LastSeenAtMs: now, ExpiresAtMs: now + 3_600_000}
	if err := e.store.SessionCreate(t.Context(), s, 20); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "copy.db")
	if _, err := BackupTo(t.Context(), e.path, dest); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.SessionByDigest(t.Context(), s.Digest, now); err != nil {
		t.Fatalf("the live server's session after the backup: %v", err)
	}
	copied, err := Open(t.Context(), Config{Path: dest, NowMs: e.clock.NowMs})
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	if got, err := copied.SessionByDigest(t.Context(), s.Digest, now); !qlerror.Is(err, qlerror.NotFound) {
		t.Fatalf("the copy's session: %+v, %v; want none", got, err)
	}
}
