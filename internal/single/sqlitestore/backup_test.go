package sqlitestore

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A backup is one read transaction: it completes while another connection
// holds the write lock with uncommitted work, holds every committed Run
// and none of that work, and names the attempts whose logs go with it.
func TestABackupIsACommittedSnapshotTakenWithoutWaitingForTheWriter(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.defs(t, "alpha", everyMinute)
	runID := e.admit(t, d.Trigger.TriggerID)
	attemptID := e.pending(t, runID).ID
	if _, _, _, err := e.store.AttemptStart(t.Context(), attemptID, "owner-1", "/logs/"+attemptID+".log"); err != nil {
		t.Fatal(err)
	}
	conn, _ := e.holdWriteLock(t)
	if _, err := conn.ExecContext(t.Context(), `UPDATE runs SET state = 'failed' WHERE id = ?`, runID); err != nil {
		t.Fatal(err)
	}

	dest := filepath.Join(t.TempDir(), "copy.db")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	logged, err := BackupTo(ctx, e.path, dest)
	if err != nil {
		t.Fatalf("backup while a writer holds the lock: %v", err)
	}
	if !slices.Equal(logged, []string{attemptID}) {
		t.Fatalf("logged attempts %v, want [%s]", logged, attemptID)
	}
	copied, err := OpenReadOnly(t.Context(), Config{Path: dest, NowMs: e.clock.NowMs})
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	if err := copied.ReadyToRead(t.Context()); err != nil {
		t.Fatal(err)
	}
	got, err := copied.RunGet(t.Context(), runID)
	if err != nil || got.Run.State != run.Running {
		t.Fatalf("the copy's run: %+v, %v; want it running, as committed (not the writer's uncommitted failed)", got.Run, err)
	}
	if st, err := os.Stat(dest); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the copy's mode: %v, %v; want 0600", st, err)
	}
	if _, err := BackupTo(t.Context(), e.path, dest); err == nil {
		t.Fatal("a backup over an existing file was not refused")
	}
}
