package server

import (
	"context"
	"log/slog"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/task"
)

// CodeTasksNotIsolated is the diagnostic code of the warning that tasks
// run as root or as the data directory's owner.
const CodeTasksNotIsolated = "tasks_not_isolated"

// warnIfTasksNotIsolated warns once when a task without a runAs of its
// own would run as root or as the owner of the data directory: its
// command could then read the database (API token hashes, console
// sessions) and the secrets file. Not refused: the quick start and CI run
// a server as root on purpose. A warning as root; information as the
// data directory's owner, which is the dedicated account the shipped
// units run a server as (their sandbox confines the tasks), so that a
// deployment as recommended starts without a warning to learn to ignore.
func warnIfTasksNotIsolated(log *slog.Logger, dataDir string, runAs task.RunAs) {
	a, err := process.DefaultTaskAccount(runAs, dataDir)
	if err != nil || !a.Exposed() {
		return
	}
	log.Log(context.Background(), process.ExposureLevel(a), "tasks without a runAs of their own run as "+a.String()+": their commands can read the database (API token hashes, console sessions), "+
		"the secrets file and the logs in the data directory; give --run-as USER, an account that does not own the data directory "+
		"(switching accounts needs the server started as root, or with CAP_SETUID and CAP_SETGID)",
		"code", CodeTasksNotIsolated, "dir", dataDir, "uid", a.UID)
}
