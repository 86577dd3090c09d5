package agent

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/qinglong/qinglong/internal/core/privatefile"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/task"
)

// warnIfDataDirShared warns once when the worker's data directory lets
// its group or others in: it holds the journal, whose records carry the
// lease tokens of the attempts it runs. The journal's files are
// owner-only anyway; an existing directory is the operator's to tighten.
// The servers' line has the same code.
func warnIfDataDirShared(log *slog.Logger, dir string) {
	if mode, open := privatefile.DirOpenToOthers(dir); open {
		log.Warn("the worker's data directory is accessible by group or others; it holds the journal and its lease tokens: run chmod 700 on it",
			"code", "data_dir_shared", "dir", dir, "mode", fmt.Sprintf("%04o", mode))
	}
}

// warnIfTasksNotIsolated warns once when a command whose task names no
// runAs would run as root or as the owner of the worker's data directory:
// it could then read the journal, the credential file (usually the same
// account's) and, as the worker's own user, the worker's environment in
// /proc. The remedy is --run-as, an account that owns none of them, or
// each task's runAs. Not refused, as the servers do not; a warning as
// root, information as the directory's owner, as theirs. The servers'
// line has the same code.
func warnIfTasksNotIsolated(log *slog.Logger, dir string, runAs task.RunAs) {
	a, err := process.DefaultTaskAccount(runAs, dir)
	if err != nil || !a.Exposed() {
		return
	}
	log.Log(context.Background(), process.ExposureLevel(a), "commands of tasks without a runAs of their own run as "+a.String()+": they can read the worker's journal (lease tokens), "+
		"its credential file and its environment (/proc/PID/environ); give --run-as USER (or those tasks runAs), an account that does not own --data-dir "+
		"(switching accounts needs the worker started as root, or with CAP_SETUID and CAP_SETGID)",
		"code", "tasks_not_isolated", "dir", dir, "uid", a.UID)
}
