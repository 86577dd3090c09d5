package sqlitestore

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/websession"
)

// A backup holds no sign-in waiting for its second step: a server restored
// from it does not take a ticket used since the copy was taken.
func TestABackupHoldsNoSecondStepOfASignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, err := e.store.UserCreate(t.Context(), account.NewUser{ID: ids.New(), Name: "alice", Role: account.Owner, Hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$a2V5QQ"})
	if err != nil {
		t.Fatal(err)
	}
	p := account.PendingStep{Digest: websession.Digest("ticket"), UserID: u.ID, Stamp: "stamp", Browser: websession.Digest("sign-in cookie")}
	if err := e.store.PendingStepCreate(t.Context(), p, 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "copy.db")
	if _, err := BackupTo(t.Context(), e.path, dest); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.PendingStepOf(t.Context(), p.Digest); err != nil {
		t.Fatalf("the live server's second step after the backup: %v", err)
	}
	copied, err := Open(t.Context(), Config{Path: dest, NowMs: e.clock.NowMs})
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	if got, err := copied.PendingStepOf(t.Context(), p.Digest); !qlerror.Is(err, qlerror.NotFound) {
		t.Fatalf("the copy's second step: %+v, %v; want none", got, err)
	}
}
