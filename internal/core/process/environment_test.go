package process

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

// A task revision published before QL_* names were refused may still carry
// one; the attempt's identity must win over it (os/exec keeps the last
// entry of a name), or escaped descendants could not be traced back and a
// command could not trust the occurrence it is told.
func TestTheAttemptsIdentityWinsOverATasksOwnQLVariables(t *testing.T) {
	t.Parallel()
	id := run.Identity{RunID: "run-1", AttemptID: "attempt-1", AttemptNumber: 2, Project: "p", Trigger: "nightly", Task: "report",
		ScheduledForMs: 1_772_928_000_000, DueAtMs: 1_772_928_004_500, Origin: run.OriginBackfill}
	cmd := task.Command{Env: []task.EnvVar{{Name: "QL_ATTEMPT_ID", Value: "forged"}, {Name: "QL_RUN_ID", Value: "forged"},
		{Name: "QL_SCHEDULED_AT", Value: "forged"}, {Name: "QL_ORIGIN", Value: "forged"}, {Name: "X", Value: "y"}}}
	last := map[string]string{}
	for _, kv := range environment([]string{"PATH=/bin"}, id, cmd, nil) {
		name, value, _ := strings.Cut(kv, "=")
		last[name] = value
	}
	want := map[string]string{"QL_RUN_ID": "run-1", "QL_ATTEMPT_ID": "attempt-1", "QL_ATTEMPT_NUMBER": "2", "QL_PROJECT": "p",
		"QL_TRIGGER": "nightly", "QL_TASK": "report", "QL_SCHEDULED_AT": "2026-03-08T00:00:00.000Z", "QL_SCHEDULED_AT_MS": "1772928000000",
		"QL_DUE_AT": "2026-03-08T00:00:04.500Z", "QL_DUE_AT_MS": "1772928004500", "QL_ORIGIN": "backfill", "X": "y", "PATH": "/bin"}
	for name, value := range want {
		if last[name] != value {
			t.Errorf("%s=%q; want %q (the attempt's identity over the task's values)", name, last[name], value)
		}
	}
}

// A Run admitted before the stores recorded its due time has none; its
// command is told its scheduled time as the due time rather than 1970.
func TestARunWithoutARecordedDueTimeIsDueAtItsScheduledTime(t *testing.T) {
	t.Parallel()
	got := map[string]string{}
	for _, kv := range (run.Identity{ScheduledForMs: 1_772_928_000_000}).Env() {
		name, value, _ := strings.Cut(kv, "=")
		got[name] = value
	}
	if got["QL_DUE_AT"] != "2026-03-08T00:00:00.000Z" || got["QL_DUE_AT_MS"] != "1772928000000" {
		t.Fatalf("due %q (%q); want the scheduled time", got["QL_DUE_AT"], got["QL_DUE_AT_MS"])
	}
}
