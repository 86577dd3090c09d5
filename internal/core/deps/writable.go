package deps

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RefusalFolderUnwritable is an npm change the --run-as account cannot
// write into the scripts folder: folder, account, fix.
const RefusalFolderUnwritable qlerror.Reason = "dependency_folder_unwritable"

// Ready is Installer, and for npm CheckWritable too: the installer of
// kind k, or why a change of k would fail before it ran.
func (h Host) Ready(k Kind) (string, error) {
	installer, err := h.Installer(k)
	if err == nil && k == Node {
		err = h.CheckWritable()
	}
	return installer, err
}

// CheckWritable refuses, before any Run, an npm change whose installer
// would run as the --run-as account (h.RunAs) and could not write what
// npm writes: the scripts folder (its package.json and lock file) and its
// node_modules, as their owners and modes say. It names the first such
// path and the command that gives it to the account. It admits what it
// cannot tell (an account it cannot look up, which the server's start
// checked): the Run then says why in its log.
func (h Host) CheckWritable() error {
	if h.RunAs.IsZero() || h.ScriptsDir == "" {
		return nil
	}
	uid, gids, ok := accountIDs(h.RunAs.User, h.RunAs.Group)
	if !ok || uid == 0 {
		return nil
	}
	for _, p := range []struct {
		path      string
		dir, tree bool
	}{
		{h.ScriptsDir, true, false},
		{filepath.Join(h.ScriptsDir, "node_modules"), true, true},
		{filepath.Join(h.ScriptsDir, "package.json"), false, false},
		{filepath.Join(h.ScriptsDir, "package-lock.json"), false, false},
	} {
		info, err := os.Stat(p.path)
		if err != nil {
			continue
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok || canWrite(info.Mode().Perm(), st.Uid, st.Gid, p.dir, uid, gids) {
			continue
		}
		fix := "chown " + h.RunAs.String() + " " + p.path
		if p.tree {
			fix = "chown -R " + h.RunAs.String() + " " + p.path
		}
		return FolderUnwritable(h.RunAs.String(), p.path, fmt.Sprintf("owned by uid %d, mode %s", st.Uid, info.Mode().Perm()), fix)
	}
	return nil
}

// FolderUnwritable refuses an npm change the --run-as account cannot
// write folder for (owner says whose it is and its mode), naming the
// command that fixes it.
func FolderUnwritable(account, folder, owner, fix string) error {
	return qlerror.New(qlerror.FailedPrecondition, "npm runs as the --run-as account %s, which cannot write %s (%s): "+
		"give it to that account with `%s` (as root), then try again", account, folder, owner, fix).
		Because(RefusalFolderUnwritable, "folder", folder, "account", account, "fix", fix)
}

// canWrite says whether uid, in groups gids, may write a file (or add to
// a directory: write and search) of mode perm owned by owner and group.
func canWrite(perm os.FileMode, owner, group uint32, dir bool, uid uint32, gids []uint32) bool {
	need := os.FileMode(0o2)
	if dir {
		need = 0o3
	}
	if owner == uid {
		return perm>>6&need == need
	}
	for _, g := range gids {
		if g == group {
			return perm>>3&need == need
		}
	}
	return perm&need == need
}

// accountIDs are the uid and groups of the account name (and group, when
// not ""), by name or number; ok is false when either is unknown here.
func accountIDs(name, group string) (uint32, []uint32, bool) {
	u, err := user.Lookup(name)
	if err != nil {
		if u, err = user.LookupId(name); err != nil {
			return 0, nil, false
		}
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return 0, nil, false
	}
	var ids []string
	if group != "" {
		g, err := user.LookupGroup(group)
		if err != nil {
			if g, err = user.LookupGroupId(group); err != nil {
				return 0, nil, false
			}
		}
		ids = []string{g.Gid}
	} else if ids, err = u.GroupIds(); err != nil {
		ids = []string{u.Gid}
	}
	var gids []uint32
	for _, id := range ids {
		if n, err := strconv.ParseUint(id, 10, 32); err == nil {
			gids = append(gids, uint32(n))
		}
	}
	return uint32(uid), gids, true
}
