// Package scripts is a single node's folder of task scripts (the 青龙
// panel's 脚本管理): listed, read, written, renamed and deleted by path
// relative to the folder, every operation through an os.Root, so that
// neither a `..` nor a symbolic link reaches a file outside it.
package scripts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// EnvVar names the folder to every command a single node or a cluster
// worker starts (each its own folder), as an absolute path.
const EnvVar = "QL_SCRIPTS_DIR"

// DirName is the folder's name in the data directory when --scripts-dir
// names none.
const DirName = "scripts"

// Limits: the largest file the console shows in its editor and saves
// from it, the most one upload may carry in all, and the longest path.
const (
	MaxEdit   = 1 << 20
	MaxUpload = 16 << 20
	MaxPath   = 1024
	maxName   = 255
)

// Folder and file modes: commands run as the server's account or a
// task's runAs account must read the scripts, so others may read (and
// enter) them; only the server's account writes.
const (
	DirMode  fs.FileMode = 0o755
	FileMode fs.FileMode = 0o644
)

// The reasons of the refusals of a path or a change.
const (
	RefusalPathInvalid    qlerror.Reason = "script_path_invalid"
	RefusalOutside        qlerror.Reason = "script_outside_folder"
	RefusalMissing        qlerror.Reason = "script_missing"
	RefusalExists         qlerror.Reason = "script_exists"
	RefusalChanged        qlerror.Reason = "script_changed"
	RefusalTooLarge       qlerror.Reason = "script_too_large"
	RefusalNotText        qlerror.Reason = "script_not_text"
	RefusalIsFolder       qlerror.Reason = "script_is_folder"
	RefusalNotFolder      qlerror.Reason = "script_not_folder"
	RefusalFolderNotEmpty qlerror.Reason = "script_folder_not_empty"
	RefusalRoot           qlerror.Reason = "script_root"
	RefusalNoFiles        qlerror.Reason = "script_upload_empty"
)

// Digest is the sha256 of content in hex: what the editor carries to
// find a change made since it loaded the file, and what the audit trail
// records of a file instead of its content.
func Digest(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// IsText reports whether content can be shown and edited as text: UTF-8
// without NUL bytes.
func IsText(content []byte) bool {
	return utf8.Valid(content) && !strings.ContainsRune(string(content), 0)
}

// Clean checks p, a path relative to the folder written with '/', and
// returns it without a leading "./" or trailing "/"; "" is the folder
// itself. A path is refused when it is absolute, names ".." or "." or an
// empty part, holds a NUL or control character or is not UTF-8, or is
// longer than MaxPath (a part longer than 255 bytes).
func Clean(p string) (string, error) {
	p = strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/")
	if p == "" || p == "." {
		return "", nil
	}
	bad := func(why string) error {
		return qlerror.New(qlerror.Invalid, "script path %q %s; give a path inside the scripts folder, such as jd_bean.js or sub/notify.py", p, why).
			Because(RefusalPathInvalid, "path", p, "why", why)
	}
	switch {
	case len(p) > MaxPath:
		return "", bad("is longer than 1024 bytes")
	case !utf8.ValidString(p):
		return "", bad("is not UTF-8")
	case strings.HasPrefix(p, "/"):
		return "", bad("is absolute")
	case strings.IndexFunc(p, unicode.IsControl) >= 0:
		return "", bad("holds a control character")
	}
	for part := range strings.SplitSeq(p, "/") {
		switch {
		case part == "..":
			return "", bad("names ..")
		case part == "" || part == ".":
			return "", bad("has an empty part")
		case len(part) > maxName:
			return "", bad("has a name longer than 255 bytes")
		}
	}
	return p, nil
}

// Name checks name, one file or folder name (no '/').
func Name(name string) (string, error) {
	if strings.Contains(name, "/") {
		return "", qlerror.New(qlerror.Invalid, "name %q holds '/'; give one name, the folder is chosen apart", name).
			Because(RefusalPathInvalid, "path", name, "why", "holds /")
	}
	n, err := Clean(name)
	if err == nil && n == "" {
		return "", qlerror.New(qlerror.Invalid, "the name is empty; give a file or folder name").Because(RefusalPathInvalid, "path", name, "why", "is empty")
	}
	return n, err
}

// Join is the path of name in the folder dir ("" the scripts folder).
func Join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// Parent is the folder p is in ("" the scripts folder).
func Parent(p string) string {
	d := path.Dir(p)
	if d == "." {
		return ""
	}
	return d
}

// refusal turns an error of an os.Root operation on p into the refusal
// it is: a path a link takes outside the folder, one missing, or one
// already there; any other is the file system's own.
func refusal(p string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	inner := err
	if errors.As(err, &pe) {
		inner = pe.Err
	} else if errors.As(err, &le) {
		inner = le.Err
	}
	shown := p
	if shown == "" {
		shown = "."
	}
	switch {
	case inner != nil && strings.Contains(inner.Error(), "path escapes from parent"):
		return qlerror.Wrap(qlerror.PermissionDenied, err, "script path %s leads outside the scripts folder through a symbolic link; nothing outside the folder is read or written: "+
			"replace the link by the file itself, or a link to a file inside the folder", shown).Because(RefusalOutside, "path", shown)
	case errors.Is(err, fs.ErrNotExist):
		return qlerror.Wrap(qlerror.NotFound, err, "script %s is not in the scripts folder (deleted or renamed?); the folder's listing shows what is there", shown).
			Because(RefusalMissing, "path", shown)
	case errors.Is(err, fs.ErrExist):
		return qlerror.Wrap(qlerror.Conflict, err, "%s is already in the scripts folder; choose another name, or delete or rename it first", shown).
			Because(RefusalExists, "path", shown)
	}
	return err
}
