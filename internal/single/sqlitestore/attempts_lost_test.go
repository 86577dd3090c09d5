package sqlitestore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/qinglong/qinglong/internal/core/process"
)

// A recovery that wrote the lost line into a log and then failed to
// commit leaves the line there; the next recovery records the attempt
// lost without adding the line again, and records the size of the log
// as it is, the one line counted.
func TestALostAttemptsLogEndsWithTheLostLineOnceAfterARecoveryThatFailed(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newEnv(t)
	d := e.defs(t, "alpha", everyMinute)
	e.take(t, 1)
	lost := e.admit(t, d.Trigger.TriggerID)
	a := e.pending(t, lost)
	if err := os.MkdirAll(e.logDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(e.logDir(), a.ID+".log")
	if _, _, _, err := e.store.AttemptStart(ctx, a.ID, "crashed", path); err != nil {
		t.Fatal(err)
	}
	want := "started" + process.LostLine(true)
	if err := os.WriteFile(path, []byte(want), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.store.AttemptsLose(ctx, "crashed"); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Fatalf("the log after a second recovery: %q, %v; want %q, the lost line once", got, err, want)
	}
	got, err := e.store.RunGet(ctx, lost)
	if err != nil || len(got.Attempts) != 1 || got.Attempts[0].LogBytes != int64(len(want)) {
		t.Fatalf("the lost run: %+v, %v; want its attempt holding its log's %d bytes", got, err, len(want))
	}
}
