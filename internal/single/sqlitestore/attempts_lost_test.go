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
	want := "started" + process.LostLine(true)
	lost, path := e.crashedWithLog(t, want)
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

// crashedWithLog admits a Run of a new every-minute trigger "alpha",
// starts its attempt under owner "crashed" (a server that then died) and
// gives the attempt a log holding content, as the command left it; it
// returns the Run and the log's path.
func (e *env) crashedWithLog(t *testing.T, content string) (runID, path string) {
	t.Helper()
	d := e.defs(t, "alpha", everyMinute)
	e.take(t, 1)
	runID = e.admit(t, d.Trigger.TriggerID)
	a := e.pending(t, runID)
	if err := os.MkdirAll(e.logDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(e.logDir(), a.ID+".log")
	if _, _, _, err := e.store.AttemptStart(t.Context(), a.ID, "crashed", path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return runID, path
}
