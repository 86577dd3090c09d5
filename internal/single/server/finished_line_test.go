package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
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
	srv.finished(run.Identity{RunID: "0193a8a0-0000-7000-8000-00000000abcd"}, run.Attempt{RunID: "0193a8a0-0000-7000-8000-00000000abcd", State: run.AttemptSucceeded, ExitCode: &exit, LogPath: "a.log"}, run.Succeeded)
	srv.finished(run.Identity{RunID: "0193a8a0-0000-7000-8000-00000000dcba"}, run.Attempt{RunID: "0193a8a0-0000-7000-8000-00000000dcba", State: run.AttemptSucceeded, ExitCode: &exit}, run.Succeeded)
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

// A Run that fails is logged at warn, so that an alert on warnings sees it,
// with what a log pipeline files it under: its run.finished line names the
// Run, its project, task and trigger, the attempt, its state and exit code,
// and how long it ran in whole milliseconds. A Run that succeeds is logged
// at info: it needs nobody.
func TestAFailedRunIsLoggedAtWarn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		script, level, state string
		exit                 float64
	}{{"exit 3", "WARN", "failed", 3}, {"exit 0", "INFO", "succeeded", 0}} {
		t.Run(c.state, func(t *testing.T) {
			t.Parallel()
			dataDir := installedDir(t)
			runID := admitRetrying(t, dataDir, c.script, task.RetryPolicy{})
			logs := &lockedBuffer{}
			srv, err := Start(t.Context(), Config{DataDir: dataDir, StopTimeout: 4 * time.Second, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Stop(context.Background()) //nolint:errcheck // the test reads the log, not the stop
			var line map[string]any
			waitFor(t, "the run.finished line", 30*time.Second, func() bool {
				for _, l := range strings.Split(logs.String(), "\n") {
					if strings.Contains(l, `"code":"`+CodeRunFinished+`"`) {
						return json.Unmarshal([]byte(l), &line) == nil
					}
				}
				return false
			})
			ms, timed := line["duration_ms"].(float64)
			if line["level"] != c.level || line["run"] != runID || line["state"] != c.state || line["exit"] != c.exit || line["attempt"] != float64(1) ||
				line["project"] != "retry" || line["task"] != "job" || line["trigger"] != "quiet" || !timed || ms < 0 || ms != float64(int64(ms)) {
				t.Fatalf("run.finished line %v; want level %s, Run %s %s with exit %g, attempt 1, project retry, task job, trigger quiet and whole duration_ms", line, c.level, runID, c.state, c.exit)
			}
		})
	}
}
