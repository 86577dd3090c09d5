package server

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// CleanStopFile is the name, in the data directory, of the mark a server's
// clean stop leaves: the identity of the database file as the stop closed
// it, which lets the next start skip reading the whole file.
const CleanStopFile = "qinglong-clean-stop"

// IntegrityCheck says when a start reads the whole database file
// (--integrity-check).
type IntegrityCheck string

const (
	// CheckAfterUncleanStop reads it unless the data directory holds the
	// mark of a clean stop naming the file as it is now: the default.
	CheckAfterUncleanStop IntegrityCheck = "after-unclean-stop"
	// CheckAlways reads it at every start.
	CheckAlways IntegrityCheck = "always"
)

// cleanStop is the mark's content. Every field but At and Build must equal
// the file's at the next start. Its times, inode and size change with any write
// to it (SQLite's, a copy's, a restore's) and ctime cannot be set back by
// any tool, so a file written, replaced or copied in since does not match;
// the header (the first 100 bytes: SQLite's change counter, page count,
// free list and schema cookie) ties the mark to the content too.
type cleanStop struct {
	At time.Time `json:"stopped_at"`
	// Build is the stopping binary's version and commit: the first start
	// of another build reads the whole file, as an upgrade's migrations
	// meet pages no earlier start of it read.
	Build    string `json:"build"`
	Dev      uint64 `json:"dev"`
	Ino      uint64 `json:"ino"`
	Size     int64  `json:"size"`
	MtimeNs  int64  `json:"mtime_ns"`
	CtimeNs  int64  `json:"ctime_ns"`
	HeaderSH string `json:"header_sha256"`
}

// sqliteHeaderBytes is the length of SQLite's database header.
const sqliteHeaderBytes = 100

// fileIdentity reads what a clean-stop mark records of the database file
// at path: why not, when it cannot be told (no file, a file system
// without the times it needs, a -wal file or journal holding writes that
// are not in the file).
func fileIdentity(path string) (cleanStop, string) {
	info, err := os.Stat(path)
	if err != nil {
		return cleanStop{}, fmt.Sprintf("the database file cannot be read (%v)", err)
	}
	id, ok := statIdentity(info)
	if !ok {
		return cleanStop{}, "this system gives no inode and change time of the file"
	}
	// Whole seconds: a file system (FAT) whose times cannot tell a write
	// made in the same second as the stop's.
	if id.MtimeNs%int64(time.Second) == 0 && id.CtimeNs%int64(time.Second) == 0 {
		return cleanStop{}, "the file system keeps the file's times in whole seconds, too coarse to tell a later write"
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	for _, side := range []string{path + "-wal", real + "-wal", path + "-journal", real + "-journal"} {
		if s, err := os.Stat(side); err == nil && s.Size() > 0 {
			return cleanStop{}, fmt.Sprintf("%s holds writes not yet in the database file", side)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return cleanStop{}, fmt.Sprintf("the database file cannot be read (%v)", err)
	}
	defer f.Close() //nolint:errcheck // opened for reading: its close loses nothing
	h := sha256.New()
	if _, err := io.CopyN(h, f, sqliteHeaderBytes); err != nil {
		return cleanStop{}, fmt.Sprintf("the database file's header cannot be read (%v)", err)
	}
	id.Size = info.Size()
	id.HeaderSH = hex.EncodeToString(h.Sum(nil))
	return id, ""
}

// same says whether the file is as the mark recorded it.
func (c cleanStop) same(now cleanStop) bool {
	now.At, now.Build = c.At, c.Build
	return c == now
}

// markCleanStop records a clean stop of the database file at db, closed
// by the caller, in the data directory dir: written to a temporary file,
// synced, renamed into place, and the directory synced, so the mark exists
// whole or not at all. It returns why no mark was left, "" when one was.
func markCleanStop(dir, db, build string, now time.Time) (string, error) {
	// The file's pages and times on the disk before the mark vouches for
	// them (SQLite synced the checkpoint; this costs nothing more).
	if err := syncFile(db); err != nil {
		return "", err
	}
	id, why := fileIdentity(db)
	if why != "" {
		return why, nil
	}
	id.At, id.Build = now.UTC(), build
	body, err := json.Marshal(id)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, CleanStopFile)
	tmp := path + ".tmp"
	if err := writeSynced(tmp, body); err != nil {
		_ = os.Remove(tmp)
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return "", err
	}
	return "", syncDirOf(path)
}

func writeSynced(path string, body []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(body)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

func syncDirOf(path string) error { return syncFile(filepath.Dir(path)) }

// takeCleanStop removes the clean-stop mark of the data directory dir,
// durably, before anything opens the database file db for writing: a
// crash after it finds no mark, whatever it left in the file. It returns
// the mark's time when the mark names the file as it is now, else the
// reason the start reads the whole file. A mark it cannot remove fails:
// the start would otherwise leave it for a later start to trust.
func takeCleanStop(dir, db, build string) (time.Time, string, error) {
	path := filepath.Join(dir, CleanStopFile)
	body, readErr := os.ReadFile(path)
	if errors.Is(readErr, fs.ErrNotExist) {
		return time.Time{}, "no clean stop was recorded (the last server on it crashed, was killed or lost power, the file was restored or copied in, or this is the first start of this release)", nil
	}
	if err := removeCleanStop(path, db); err != nil {
		return time.Time{}, "", err
	}
	if readErr != nil {
		return time.Time{}, fmt.Sprintf("the clean-stop mark %s could not be read (%v)", path, readErr), nil
	}
	var mark cleanStop
	if err := json.Unmarshal(body, &mark); err != nil {
		return time.Time{}, fmt.Sprintf("the clean-stop mark %s is not whole (%v)", path, err), nil
	}
	now, why := fileIdentity(db)
	switch {
	case mark.Build != build:
		return time.Time{}, fmt.Sprintf("this is the first start of build %s on it (the clean stop at %s was by %s)", build, mark.At.Format(time.RFC3339), mark.Build), nil
	case why != "":
		return time.Time{}, why, nil
	case !mark.same(now):
		return time.Time{}, fmt.Sprintf("the database file is not the one the clean stop at %s closed (written, replaced, restored or copied in since)", mark.At.Format(time.RFC3339)), nil
	}
	return mark.At, "", nil
}

// removeCleanStop removes the mark at path and syncs its directory.
func removeCleanStop(path, db string) error {
	if err := os.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return qlerror.Wrap(qlerror.Unavailable, err, "remove %s, the mark of the last clean stop, before opening %s; check that the data directory is writable", path, db)
	}
	return syncDirOf(path)
}

// discardCleanStop removes the clean-stop mark beside the database file
// db before a command opens it for writing with no server on it: from
// then on only the next server's clean stop vouches for the file.
func discardCleanStop(db string) error {
	return removeCleanStop(filepath.Join(filepath.Dir(db), CleanStopFile), db)
}

// CodeCleanStopMarked is the log code of a stop that left the clean-stop
// mark, and CodeCleanStopUnmarked of one that could not (the next start
// reads the whole file).
const (
	CodeCleanStopMarked   = "serve.clean_stop_marked"
	CodeCleanStopUnmarked = "serve.clean_stop_unmarked"
)

// markCleanStop leaves the clean-stop mark of the database file the stop
// just closed, unless the server met a corrupt page or the path came to
// name another file while it served. A mark it cannot write only costs
// the next start its check, so it is said, not failed.
func (s *Server) markCleanStop() {
	var why string
	var err error
	switch {
	case s.corrupt.Load():
		why = "the server met a corrupt page"
	case s.moved.Load():
		why = "the database path names another file than the one served"
	default:
		why, err = markCleanStop(s.cfg.DataDir, s.layout.DB, s.cfg.build(), time.Now())
	}
	switch {
	case err != nil:
		s.cfg.Logger.Warn("could not record the clean stop; the next start reads the whole database file", "code", CodeCleanStopUnmarked, "error", err.Error())
	case why != "":
		s.cfg.Logger.Info("no clean stop recorded, since "+why+"; the next start reads the whole database file", "code", CodeCleanStopUnmarked, "reason", why)
	default:
		s.cfg.Logger.Info("recorded the clean stop; the next start on this same file skips reading it whole", "code", CodeCleanStopMarked, "file", filepath.Join(s.cfg.DataDir, CleanStopFile))
	}
}

// build names the serving binary in a clean-stop mark.
func (c Config) build() string { return c.Version + " " + c.Commit }
