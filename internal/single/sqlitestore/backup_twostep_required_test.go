package sqlitestore

import (
	"path/filepath"
	"testing"
)

// A backup keeps two-step sign-in required of every user: restored, the
// server walls whoever has none, as before.
func TestABackupKeepsTwoStepRequired(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if changed, err := e.store.TwoStepRequire(t.Context(), true, "tester"); err != nil || !changed {
		t.Fatalf("require two-step: %v, %v", changed, err)
	}
	dest := filepath.Join(t.TempDir(), "copy.db")
	if _, err := BackupTo(t.Context(), e.path, dest); err != nil {
		t.Fatal(err)
	}
	copied, err := OpenReadOnly(t.Context(), Config{Path: dest, NowMs: e.clock.NowMs})
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	if err := copied.ReadyToRead(t.Context()); err != nil {
		t.Fatal(err)
	}
	if on, err := copied.TwoStepRequired(t.Context()); err != nil || !on {
		t.Fatalf("the copy's requirement: %v, %v; want it required", on, err)
	}
}
