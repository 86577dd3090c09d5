package pgtest

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// BinDirEnv names the environment variable that points the harness at a
// PostgreSQL bin directory, taking precedence over PATH and /usr/lib. It is
// how the suite is run against another major version (e.g. 18) installed
// side by side.
const BinDirEnv = "QL_TEST_PG_BIN"

// debianBinGlob is where Debian/Ubuntu packages install server binaries; they
// are not on PATH there (only the pg_wrapper client scripts are).
const debianBinGlob = "/usr/lib/postgresql/*/bin"

// requiredPrograms must all be present in a bin directory. postgres and initdb
// are what StartServer runs; pg_ctl is checked too because fault tests drive
// promotion with it via Srv.Command.
var requiredPrograms = []string{"initdb", "pg_ctl", "postgres"}

// findBinDir resolves the bin directory as documented on the package.
func findBinDir() (string, error) {
	if dir := os.Getenv(BinDirEnv); dir != "" {
		// An explicit choice that is wrong must fail loudly rather than fall
		// back to some other version and silently test the wrong server.
		if err := checkBinDir(dir); err != nil {
			return "", fmt.Errorf("pgtest: $%s: %w", BinDirEnv, err)
		}
		return dir, nil
	}
	if dir, ok := binDirFromPath(); ok {
		return dir, nil
	}
	if dir, ok := highestDebianBinDir(); ok {
		return dir, nil
	}
	return "", fmt.Errorf("pgtest: no PostgreSQL server binaries: set $%s, put initdb and pg_ctl on PATH, or install them under %s",
		BinDirEnv, debianBinGlob)
}

// binDirFromPath returns the directory initdb really lives in. Symlinks are
// resolved because postgres and the other programs sit next to the real file,
// not next to a link in /usr/local/bin.
func binDirFromPath() (string, bool) {
	initdb, err := exec.LookPath("initdb")
	if err != nil {
		return "", false
	}
	real, err := filepath.EvalSymlinks(initdb)
	if err != nil {
		return "", false
	}
	dir := filepath.Dir(real)
	return dir, checkBinDir(dir) == nil
}

func highestDebianBinDir() (string, bool) {
	dirs, _ := filepath.Glob(debianBinGlob) // the pattern is constant and valid
	dirs = slices.DeleteFunc(dirs, func(d string) bool { return checkBinDir(d) != nil })
	if len(dirs) == 0 {
		return "", false
	}
	// Version directories are "9.6", "15", "18": compare numerically, not as
	// strings, or "9.6" would beat "18".
	best := slices.MaxFunc(dirs, func(a, b string) int {
		return slices.Compare(versionParts(filepath.Base(filepath.Dir(a))), versionParts(filepath.Base(filepath.Dir(b))))
	})
	return best, true
}

func versionParts(v string) []int {
	var parts []int
	for f := range strings.SplitSeq(v, ".") {
		n, err := strconv.Atoi(f)
		if err != nil {
			n = -1
		}
		parts = append(parts, n)
	}
	return parts
}

func checkBinDir(dir string) error {
	for _, name := range requiredPrograms {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return fmt.Errorf("%s: %s is not an executable file", dir, name)
		}
	}
	return nil
}

// osUser is the account PostgreSQL programs run as when the test process is
// root. A nil *osUser means "as ourselves".
type osUser struct {
	name     string
	uid, gid uint32
}

// serverUserName is the conventional account; Debian's postgresql package
// creates it.
const serverUserName = "postgres"

// serverOwner returns who PostgreSQL programs must run as: nil unless we are
// root, because initdb and postgres refuse to run as root.
func serverOwner() (*osUser, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(serverUserName)
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root, and initdb/postgres refuse root, but there is no %q user to run them as (apt-get install postgresql creates it): %w",
			serverUserName, err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("pgtest: user %s: uid %q: %w", serverUserName, u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("pgtest: user %s: gid %q: %w", serverUserName, u.Gid, err)
	}
	return &osUser{name: serverUserName, uid: uint32(uid), gid: uint32(gid)}, nil
}

// command prepares binDir/name to run as owner with a scrubbed environment
// and dir as its working directory: as another user our own working
// directory may be unreadable, and initdb needs to resolve its cwd.
func command(ctx context.Context, binDir string, owner *osUser, dir string, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, name), args...)
	cmd.Dir = dir
	cmd.Env = serverEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if owner != nil {
		// Credential rather than runuser/su: no helper process sits between
		// us and postgres, so its parent-death signal refers to us. An empty
		// Groups list drops root's supplementary groups.
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: owner.uid, Gid: owner.gid, Groups: []uint32{}}
	}
	return cmd
}

// serverEnv is our environment minus PG* variables (PGDATA, PGPORT,
// PGOPTIONS, ...), which would otherwise leak a developer's own cluster
// settings into the private one, and with a C locale so server messages are
// untranslated and stable for assertions.
func serverEnv() []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG=")
	})
	return append(env, "LC_ALL=C")
}

// chownTree gives path and everything below it to owner (no-op when nil).
func chownTree(path string, owner *osUser) error {
	if owner == nil {
		return nil
	}
	return filepath.WalkDir(path, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(owner.uid), int(owner.gid))
	})
}

// checkSearchable fails when owner cannot reach path because some parent
// directory denies it search (x) permission, e.g. TMPDIR under /root. initdb
// would fail too, but with a message that does not point at the cause.
func checkSearchable(path string, owner *osUser) error {
	if owner == nil {
		return nil
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		perm := fi.Mode().Perm()
		searchable := perm&0o001 != 0 ||
			(st.Gid == owner.gid && perm&0o010 != 0) ||
			(st.Uid == owner.uid && perm&0o100 != 0)
		if !searchable {
			return fmt.Errorf("pgtest: %s (mode %v) is not searchable by user %s, who runs the server because we are root; use a TMPDIR such as /tmp",
				dir, perm, owner.name)
		}
		if parent := filepath.Dir(dir); parent == dir {
			return nil
		}
	}
}
