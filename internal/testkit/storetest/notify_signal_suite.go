package storetest

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
)

// testANotificationSaysWhichSignalKilledTheCommand: a Run whose command
// was killed by a signal (not by QingLong) notifies with that signal by
// number and name, as its end event has them, and with no exit code; its
// text says it too. A command that exited has neither.
func testANotificationSaysWhichSignalKilledTheCommand(t *testing.T, f Fixture) {
	d := notifyDefs(t, f, "alpha", notify.Rule{On: notify.OnFailed, Channel: "ops"})
	id := admitNow(t, f, d.Trigger.TriggerID, runFinishedLateMs)
	if got, err := f.FinishKilled(t.Context(), id, 9); err != nil || got != run.Failed {
		t.Fatalf("finish run %s killed by SIGKILL: the Run ended %q (%v); want failed", id, got, err)
	}
	runFinished(t, f, d.Trigger.TriggerID, 1, run.AttemptFailed)
	ms := outbox(t, f)
	if len(ms) != 2 {
		t.Fatalf("%d outbox rows; want one for each failed Run", len(ms))
	}
	exited, killed := ms[0].Payload, ms[1].Payload
	if killed.RunID != id {
		exited, killed = killed, exited
	}
	switch {
	case killed.Signal != 9 || killed.SignalName != "SIGKILL" || killed.ExitCode != nil:
		t.Fatalf("the killed Run's notification %+v; want signal 9 (SIGKILL) and no exit code", killed)
	case !strings.Contains(notify.Details(killed), "signal: 9 (SIGKILL)"):
		t.Fatalf("the killed Run's notification text %q does not name the signal", notify.Details(killed))
	case exited.Signal != 0 || exited.SignalName != "" || exited.ExitCode == nil:
		t.Fatalf("the exited Run's notification %+v; want its exit code and no signal", exited)
	}
}
