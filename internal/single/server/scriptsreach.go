package server

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/task"
)

// CodeScriptsUnreachable is the log code of a start whose --run-as
// account cannot reach the scripts folder.
const CodeScriptsUnreachable = "serve.scripts_unreachable"

// scriptsHiddenFrom is the --run-as account's name when the commands it
// runs cannot reach the scripts folder: a folder inside the data
// directory, whose mode lets no other account in (0700), and an account
// that is neither root, nor this server's, nor the directory's owner.
// It is "" when they can, and when the account cannot be resolved
// (CheckRunAs says why).
func scriptsHiddenFrom(dataDir, scriptsDir string, runAs task.RunAs) string {
	if runAs.IsZero() {
		return ""
	}
	a, err := process.DefaultTaskAccount(runAs, dataDir)
	if err != nil || a.Root || a.OwnsDataDir || a.UID == os.Geteuid() {
		return ""
	}
	info, err := os.Stat(dataDir)
	if err != nil || info.Mode().Perm()&0o001 != 0 {
		return ""
	}
	data, err := resolved(dataDir)
	if err != nil {
		return ""
	}
	folder, err := resolved(scriptsDir)
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(data, folder)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return runAs.User
}

// warnIfScriptsHidden says at start that the tasks' --run-as account
// cannot read the scripts folder, and what to do: a --scripts-dir
// outside the data directory. The server starts all the same; the
// console's Scripts page says it too.
func warnIfScriptsHidden(log *slog.Logger, dataDir, scriptsDir, account string) {
	if account == "" {
		return
	}
	log.Warn("tasks run as --run-as "+account+" cannot read the scripts folder "+scriptsDir+": it is inside the data directory "+dataDir+
		", which lets no other account in; give --scripts-dir a folder outside the data directory (such as /srv/qinglong-scripts), "+
		"owned by this server's account and readable by "+account+", and move the scripts there",
		"code", CodeScriptsUnreachable, "scripts_dir", scriptsDir, "dir", dataDir, "run_as", account)
}
