package server

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// The line a finished Run logs tells the operator to read its output with
// `ql runs logs` only when its command had a log; a command that ran
// without one (its log could not be created) is said to have left none.
func TestTheRunFinishedLinePointsAtRunsLogsOnlyForARunWithALog(t *testing.T) {
	var log lockedBuffer
	srv, err := startQuiet(t, Config{DataDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	exit := int64(0)
	srv.finished(run.Attempt{RunID: "0193a8a0-0000-7000-8000-00000000abcd", State: run.AttemptSucceeded, ExitCode: &exit, LogPath: "a.log"}, run.Succeeded)
	srv.finished(run.Attempt{RunID: "0193a8a0-0000-7000-8000-00000000dcba", State: run.AttemptSucceeded, ExitCode: &exit}, run.Succeeded)
	var withLog, withoutLog string
	for _, l := range strings.Split(log.String(), "\n") {
		switch {
		case strings.Contains(l, "run=0193a8a0-0000-7000-8000-00000000abcd"):
			withLog = l
		case strings.Contains(l, "run=0193a8a0-0000-7000-8000-00000000dcba"):
			withoutLog = l
		}
	}
	if !strings.Contains(withLog, "runs logs 0193a8a0-0000-7000-8000-00000000abcd") {
		t.Errorf("the line of a Run with a log is %q; want it to point at ql runs logs", withLog)
	}
	if !strings.Contains(withoutLog, "code="+CodeRunFinished) || strings.Contains(withoutLog, "runs logs") || !strings.Contains(withoutLog, "left no log") {
		t.Errorf("the line of a Run without a log is %q; want it finished, saying it left no log, and not pointing at ql runs logs", withoutLog)
	}
}
