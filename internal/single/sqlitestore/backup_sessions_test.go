package sqlitestore

import (
	"path/filepath"
	"testing"
	"time"

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
	s := websession.Signin{Digest: websession.Digest("cookie token"), UserID: ids.New(), Stamp: "stamp", Name: "alice", Scope: apitoken.Admin}
	if _, err := e.store.SessionCreate(t.Context(), s, time.Hour, 20); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "copy.db")
	if _, err := BackupTo(t.Context(), e.path, dest); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.SessionByDigest(t.Context(), s.Digest); err != nil {
		t.Fatalf("the live server's session after the backup: %v", err)
	}
	copied, err := Open(t.Context(), Config{Path: dest, NowMs: e.clock.NowMs})
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	if got, err := copied.SessionByDigest(t.Context(), s.Digest); !qlerror.Is(err, qlerror.NotFound) {
		t.Fatalf("the copy's session: %+v, %v; want none", got, err)
	}
}
