package process

import (
	"log/slog"
	"os"
	"strconv"
	"syscall"

	"github.com/qinglong/qinglong/internal/core/task"
)

// TaskAccount is who a command without a runAs of its own runs as, and
// what that account may reach of the process starting it.
type TaskAccount struct {
	UID int
	// Root: the command runs as uid 0, and may read anything.
	Root bool
	// OwnsDataDir: the command runs as the owner of the data directory,
	// and may read the database (token hashes, sessions), the secrets
	// file, a worker's journal and credential, and, as the same user,
	// this process's environment under /proc.
	OwnsDataDir bool
}

// Exposed reports whether such a command reaches what the data
// directory and this process hold.
func (a TaskAccount) Exposed() bool { return a.Root || a.OwnsDataDir }

// DefaultTaskAccount is the account commands run as by default: r's (a
// server's --run-as), else this process's own, set against the owner of
// dataDir. An r that cannot be resolved is CheckRunAs's error.
func DefaultTaskAccount(r task.RunAs, dataDir string) (TaskAccount, error) {
	uid := os.Geteuid()
	if !r.IsZero() {
		u, err := lookupUser(r.User)
		if err != nil {
			return TaskAccount{}, err
		}
		n, err := strconv.Atoi(u.Uid)
		if err != nil {
			return TaskAccount{}, err
		}
		uid = n
	}
	a := TaskAccount{UID: uid, Root: uid == 0}
	if info, err := os.Stat(dataDir); err == nil {
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			a.OwnsDataDir = int(st.Uid) == uid
		}
	}
	return a, nil
}

// String names the account as a warning says it: "root (uid 0)", or "uid
// 1000, the data directory's owner".
func (a TaskAccount) String() string {
	if a.Root {
		return "root (uid 0)"
	}
	return "uid " + strconv.Itoa(a.UID) + ", the data directory's owner"
}

// ExposureLevel is the level a start logs a's exposure at: a warning as
// root, information as the data directory's owner (the dedicated account
// a deployment as recommended runs as).
func ExposureLevel(a TaskAccount) slog.Level {
	if a.Root {
		return slog.LevelWarn
	}
	return slog.LevelInfo
}
