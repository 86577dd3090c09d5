package process

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// MaxSecretNameLen is the longest secret name: the longest reference a
// task's env or a notification channel may make.
const MaxSecretNameLen = 128

// MaxSecretLen is the longest secret value: a secret reaches a command as
// an environment value, which may hold no more.
const MaxSecretLen = task.MaxEnvValueLen

// The reasons of a secret's name or value refused.
const (
	RefusalSecretName         qlerror.Reason = "secret_name_shape"
	RefusalSecretValueShort   qlerror.Reason = "secret_value_short"
	RefusalSecretValueLong    qlerror.Reason = "secret_value_long"
	RefusalSecretValueNUL     qlerror.Reason = "secret_value_nul"
	RefusalSecretValueNotUTF8 qlerror.Reason = "secret_value_not_utf8"
)

// CheckSecretName refuses a name no task or channel could refer to
// (task.IsSecretName).
func CheckSecretName(name string) error {
	if name == "" || len(name) > MaxSecretNameLen || !task.IsSecretName(name) {
		return qlerror.New(qlerror.Invalid, "secret name %q: use 1–%d letters, digits, '_', '.' or '-', the names a task's env and a notification channel refer to, after PROJECT/ for a secret only that project's may name", name, MaxSecretNameLen).
			Because(RefusalSecretName, "name", name, "max", MaxSecretNameLen)
	}
	return nil
}

// CheckSecretValue refuses a value a Run could not use. The error never
// quotes the value.
func CheckSecretValue(name, value string) error {
	switch {
	case len(value) < MinSecretLen:
		return qlerror.New(qlerror.Invalid, "secret %q: the value has %d bytes, at least %d are needed so it can be masked in output without hiding unrelated text; use a longer value, or a plain env value if it is not secret", name, len(value), MinSecretLen).
			Because(RefusalSecretValueShort, "name", name, "min", MinSecretLen)
	case len(value) > MaxSecretLen:
		return qlerror.New(qlerror.Invalid, "secret %q: the value has %d bytes, the limit is %d (an environment value's)", name, len(value), MaxSecretLen).
			Because(RefusalSecretValueLong, "name", name, "max", MaxSecretLen)
	case strings.ContainsRune(value, 0):
		return qlerror.New(qlerror.Invalid, "secret %q: the value contains a NUL byte, which no environment value can hold", name).
			Because(RefusalSecretValueNUL, "name", name)
	case !utf8.ValidString(value):
		// The file is JSON: bytes that are not UTF-8 would be stored as
		// U+FFFD and the command would get another value than was set.
		return qlerror.New(qlerror.Invalid, "secret %q: the value is not UTF-8 text; store binary data encoded (base64, hex) and decode it in the command", name).
			Because(RefusalSecretValueNotUTF8, "name", name)
	}
	return nil
}

// Names returns the names the file defines, sorted; a missing file
// defines none. A file this process may not edit or use is refused with
// the same *SecretsFileError a Run would get.
func (s Secrets) Names() ([]string, error) {
	all, _, err := s.loadForEdit()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// Set stores value under name, replacing the file in one rename, and says
// whether name was defined before. The next attempt that starts reads it.
func (s Secrets) Set(name, value string) (replaced bool, err error) {
	if err := CheckSecretName(name); err != nil {
		return false, err
	}
	if err := CheckSecretValue(name, value); err != nil {
		return false, err
	}
	err = s.edit(func(all map[string]string) bool {
		_, replaced = all[name]
		all[name] = value
		return true
	})
	return replaced, err
}

// OwnedByAnother is the uid the file belongs to when that is not this
// process's user, and whether it is so: root editing (or creating, in a
// directory of another user's) writes the file for the user the server
// that reads it runs as, and a server running as any other user refuses
// it at its first read, so the one who edited it is told whose it is.
func (s Secrets) OwnedByAnother() (int, bool) {
	info, err := os.Stat(s.Path)
	if err != nil {
		return 0, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() {
		return 0, false
	}
	return int(st.Uid), true
}

// Delete removes name from the file and says whether it was defined; a
// name that was not leaves the file untouched.
func (s Secrets) Delete(name string) (existed bool, err error) {
	if err := CheckSecretName(name); err != nil {
		return false, err
	}
	err = s.edit(func(all map[string]string) bool {
		_, existed = all[name]
		delete(all, name)
		return existed
	})
	return existed, err
}

// owner is who must own the secrets file: the user whose Runs read it.
type owner struct{ uid, gid int }

// edit applies change to the file's secrets under an exclusive lock of its
// directory, so two edits at once cannot lose one another's change, and
// writes the result to a new file renamed over the old one only when
// change says it changed something: a reader (an attempt starting)
// sees the old file or the new one whole, never a part.
func (s Secrets) edit(change func(map[string]string) bool) error {
	dir := filepath.Dir(s.Path)
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	all, own, err := s.loadForEdit()
	if err != nil {
		return err
	}
	if !change(all) {
		return nil
	}
	return s.replace(all, own)
}

// loadForEdit reads the file as load does, and says who must own the new
// one. Root may edit a file that belongs to the server's user (it is
// written back with that owner); any other user only a file of its own.
// A missing file is empty, owned by whoever owns its directory when root
// writes it.
func (s Secrets) loadForEdit() (map[string]string, owner, error) {
	own := owner{uid: os.Geteuid(), gid: os.Getegid()}
	// Lstat: a link's own owner, not its target's; the load refuses it.
	if info, err := os.Lstat(s.Path); err == nil {
		if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != own.uid {
			if own.uid != 0 {
				return nil, own, qlerror.New(qlerror.PermissionDenied, "secrets file %s belongs to uid %d, and this command runs as uid %d: run it as that user (the one that runs the server), e.g. sudo -u '#%d' …, or as root", s.Path, st.Uid, own.uid, st.Uid)
			}
			own = owner{uid: int(st.Uid), gid: int(st.Gid)}
		}
	} else if own.uid == 0 {
		if info, err := os.Stat(filepath.Dir(s.Path)); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				own = owner{uid: int(st.Uid), gid: int(st.Gid)}
			}
		}
	}
	all, err := s.loadOwnedBy(own.uid)
	if errors.Is(err, os.ErrNotExist) {
		if _, statErr := os.Stat(filepath.Dir(s.Path)); statErr != nil {
			return nil, own, qlerror.New(qlerror.NotFound, "the directory of the secrets file %s does not exist; check --data-dir (or --secrets-file)", s.Path)
		}
		return map[string]string{}, own, nil
	}
	return all, own, err
}

// replace writes all to a new file beside the old one, mode 0600 and
// owned by own, flushes it and renames it over the old one.
func (s Secrets) replace(all map[string]string, own owner) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(all); err != nil {
		return qlerror.Wrap(qlerror.Internal, err, "encode secrets")
	}
	dir := filepath.Dir(s.Path)
	f, err := os.CreateTemp(dir, ".qinglong-secrets-*.tmp")
	if err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "write secrets file %s: create a new file in %s", s.Path, dir)
	}
	tmp := f.Name()
	fail := func(err error) error {
		_ = f.Close()
		_ = os.Remove(tmp)
		return qlerror.Wrap(qlerror.Unavailable, err, "write secrets file %s", s.Path)
	}
	if err := f.Chmod(0o600); err != nil {
		return fail(err)
	}
	if own.uid != os.Geteuid() {
		if err := f.Chown(own.uid, own.gid); err != nil {
			return fail(err)
		}
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(tmp)
		return qlerror.Wrap(qlerror.Unavailable, err, "write secrets file %s", s.Path)
	}
	if err := os.Rename(tmp, s.Path); err != nil {
		_ = os.Remove(tmp)
		return qlerror.Wrap(qlerror.Unavailable, err, "write secrets file %s", s.Path)
	}
	// The rename is durable only once the directory is flushed: a crash
	// right after would otherwise bring the old file back.
	return syncDir(dir)
}

// lockDir takes an exclusive lock on dir, released by the returned
// function. The directory, not the file, is locked: the file is replaced
// by each edit, and a lock on it would be a lock on the old file.
func lockDir(dir string) (func(), error) {
	d, err := os.Open(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, qlerror.New(qlerror.NotFound, "the secrets file's directory %s does not exist; check --data-dir (or --secrets-file)", dir)
		}
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "lock the secrets file's directory %s", dir)
	}
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX); err != nil {
		_ = d.Close()
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "lock the secrets file's directory %s", dir)
	}
	return func() {
		_ = syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
		_ = d.Close()
	}, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "flush the directory %s", dir)
	}
	defer d.Close() //nolint:errcheck // read only
	if err := d.Sync(); err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "flush the directory %s", dir)
	}
	return nil
}
