package agent

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/qinglong/qinglong/internal/core/privatefile"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/task"
)

// sayIfDataDirShared says once how far the worker's data directory lets
// its group or others in, as the servers do (same code): the journal's
// files, whose records carry lease tokens, are owner-only, so a directory
// they may only list is information; one they may write lets them replace
// the journal, a warning.
func sayIfDataDirShared(log *slog.Logger, dir string) {
	switch mode, access := privatefile.DirOpenToOthers(dir); access {
	case privatefile.DirWritable:
		log.Warn("the worker's data directory is writable by group or others: they can replace or delete the journal and its lease tokens; run chmod 700 on it",
			"code", "data_dir_shared", "dir", dir, "mode", fmt.Sprintf("%04o", mode))
	case privatefile.DirListable:
		log.Info("group or others may list the worker's data directory: the journal's files are owner-only, so they see names and sizes, not contents; run chmod 700 on it to hide those too",
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
