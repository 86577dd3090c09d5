package server

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/qinglong/qinglong/internal/core/bytecount"
	"github.com/qinglong/qinglong/internal/core/databackup"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/single/attemptlog"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// downloadPrefix names the directory, inside the data directory, that
// holds the database's copy of a backup archive on its way: on the data
// directory's own disk, where the server may always write. A server
// killed mid-download leaves it; the next start removes it
// (removeLeftDownloads).
const downloadPrefix = ".qinglong-backup-download-"

// archives is the databackup.Source of a server's data directory: one
// archive at a time.
type archives struct {
	layout Layout
	nowMs  func() int64
	// work is the directory the database's copy is made in: the data
	// directory itself when "" (a server may always write there).
	work string
	// workName names the copy's directory in work, one a stale copy of
	// the same archive left is known by; a new random name when "".
	workName string
	busy     atomic.Bool
}

// Estimate sums the database file (with its -wal file), the logs and the
// secrets file as they are now.
func (a *archives) Estimate(ctx context.Context) (databackup.Estimate, error) {
	e := databackup.Estimate{DataDir: filepath.Dir(a.layout.DB)}
	if abs, err := filepath.Abs(e.DataDir); err == nil {
		e.DataDir = abs
	}
	e.DBBytes = databaseBytes(a.layout.DB)
	entries, err := os.ReadDir(a.layout.Logs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return e, qlerror.Wrap(qlerror.Unavailable, err, "read the logs directory %s", a.layout.Logs)
	}
	for _, d := range entries {
		if ctx.Err() != nil {
			return e, ctx.Err()
		}
		if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
			e.Logs++
			e.LogBytes += info.Size()
		}
	}
	if info, err := os.Stat(a.layout.Secrets); err == nil {
		e.Secrets, e.SecretsBytes = true, info.Size()
	}
	return e, nil
}

// databaseBytes is the most a copy of the database at db may take: the
// file and its -wal file, whose pages the copy holds once.
func databaseBytes(db string) int64 {
	var n int64
	for _, p := range []string{db, db + "-wal"} {
		if info, err := os.Stat(p); err == nil {
			n += info.Size()
		}
	}
	return n
}

// Name is the archive's file name, from the minute it is begun.
func (a *archives) Name() string {
	return "qinglong-backup-" + time.UnixMilli(a.nowMs()).UTC().Format("20060102-1504") + ".tar.gz"
}

// Begin takes the one backup, checks the room for the database's copy
// and takes it, as `ql backup` does (sqlitestore.BackupTo).
func (a *archives) Begin(ctx context.Context) (databackup.Archive, error) {
	if !a.busy.CompareAndSwap(false, true) {
		return nil, databackup.Busy()
	}
	arch, err := a.begin(ctx)
	if err != nil {
		a.busy.Store(false)
		return nil, err
	}
	return arch, nil
}

func (a *archives) begin(ctx context.Context) (*archive, error) {
	dir := a.work
	if dir == "" {
		dir = filepath.Dir(a.layout.DB)
	}
	if err := checkBackupRoom(dir, databaseBytes(a.layout.DB)); err != nil {
		return nil, err
	}
	var tmp string
	var err error
	if a.workName != "" {
		tmp = filepath.Join(dir, a.workName)
		err = os.Mkdir(tmp, 0o700)
	} else {
		tmp, err = os.MkdirTemp(dir, downloadPrefix)
	}
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "create the backup's working directory in %s", dir)
	}
	arch := &archive{owner: a, tmp: tmp, layout: a.layout, name: a.Name()}
	if arch.logged, err = sqlitestore.BackupTo(ctx, a.layout.DB, filepath.Join(tmp, filepath.Base(a.layout.DB))); err != nil {
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	return arch, nil
}

// checkBackupRoom refuses a backup whose database copy, need bytes at
// most, the disk holding dir has no room for.
func checkBackupRoom(dir string, need int64) error {
	free, err := freeBytes(dir)
	if err != nil {
		return err
	}
	if free < need {
		return databackup.NoSpace(dir, need, free)
	}
	return nil
}

// archive is one backup on its way: the database's copy in tmp, and the
// ids of its attempts that have a log.
type archive struct {
	owner  *archives
	tmp    string
	name   string
	layout Layout
	logged []string
	closed atomic.Bool
}

func (x *archive) Name() string { return x.name }

// WriteTo writes the archive: the logs of the copy's attempts, the
// secrets file, the data directory's scripts folder, then the
// database's copy, last, as `ql backup` moves
// them into place (publishBackup): an archive cut off unpacks to a
// directory without qinglong.db, which no server serves as a data
// directory (checkNotRemains). A log still being written is taken as
// far as it got when it is opened, as `ql backup` copies it; one log
// retention removed meanwhile is left out. A sparse log's holes go in as
// zeros: Go's tar writer writes no sparse entries (it only reads them),
// and the zeros cost the archive a few bytes each MiB.
func (x *archive) WriteTo(ctx context.Context, w io.Writer) (int64, error) {
	counted := bytecount.NewWriter(w)
	// The fastest level: logs compress to about a third at it, and it
	// takes a sixth of the default level's CPU time, which on a small host
	// is the core the server's admissions would otherwise have.
	zw, err := gzip.NewWriterLevel(counted, gzip.BestSpeed)
	if err != nil {
		return 0, err
	}
	zw.Comment = databackup.ArchiveComment
	tw := tar.NewWriter(zw)
	logs := filepath.Base(x.layout.Logs)
	err = addDir(tw, x.layout.Logs, logs)
	for _, id := range x.logged {
		if err != nil {
			break
		}
		if err = ctx.Err(); err == nil {
			err = addFile(tw, attemptlog.Path(x.layout.Logs, id), logs+"/"+id+".log")
		}
	}
	if err == nil {
		err = addFile(tw, x.layout.Secrets, filepath.Base(x.layout.Secrets))
	}
	if err == nil {
		err = addScripts(ctx, tw, x.layout.Scripts, filepath.Base(x.layout.Scripts))
	}
	if err == nil {
		err = addFile(tw, filepath.Join(x.tmp, filepath.Base(x.layout.DB)), filepath.Base(x.layout.DB))
	}
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = zw.Close()
	}
	return counted.Count(), err
}

// Close removes the database's copy and frees the server's backup.
func (x *archive) Close() error {
	if !x.closed.CompareAndSwap(false, true) {
		return nil
	}
	defer x.owner.busy.Store(false)
	return os.RemoveAll(x.tmp)
}

// addDir adds the directory at path, with its mode, as name.
func addDir(tw *tar.Writer, path, name string) error {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o700, ModTime: time.Now()})
	}
	if err != nil {
		return err
	}
	h, err := tar.FileInfoHeader(info, "")
	if err != nil {
		return err
	}
	h.Name = name + "/"
	return tw.WriteHeader(h)
}

// addFile adds the file at path as name, as many bytes as it held when
// opened; a file that does not exist is left out.
func addFile(tw *tar.Writer, path, name string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close() //nolint:errcheck // read only
	info, err := f.Stat()
	if err != nil {
		return err
	}
	h, err := tar.FileInfoHeader(info, "")
	if err != nil {
		return err
	}
	h.Name = name
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	if _, err := io.CopyN(tw, f, h.Size); err != nil {
		return fmt.Errorf("add %s to the archive: %w", name, err)
	}
	return nil
}

// addScripts adds the scripts folder at dir as name, what `ql backup`
// copies of it (eachScript); a missing folder adds nothing.
func addScripts(ctx context.Context, tw *tar.Writer, dir, name string) error {
	err := eachScript(ctx, dir, func(r *os.Root, p string, info fs.FileInfo) error {
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		h.Name = path.Join(name, p)
		if info.IsDir() {
			h.Name += "/"
			return tw.WriteHeader(h)
		}
		f, err := r.Open(p)
		if err != nil {
			return err
		}
		defer f.Close() //nolint:errcheck // read only
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := io.CopyN(tw, f, h.Size); err != nil {
			return fmt.Errorf("add %s to the archive: %w", h.Name, err)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// archiveWork is the name of the directory, beside file, an archive's
// copy of the database is made in: the same for every run writing file,
// so that the next run knows the one a killed run left.
func archiveWork(file string) string {
	sum := sha256.Sum256([]byte(filepath.Base(file)))
	return downloadPrefix + hex.EncodeToString(sum[:8])
}

// removeLeftDownloads removes what a server killed while it sent a backup
// archive left in the data directory: the database's copy, which holds
// the secrets of the copy's Runs. The server holds the directory's lock,
// so no archive of another server is on its way there.
func removeLeftDownloads(dataDir string, log *slog.Logger) {
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), downloadPrefix) {
			continue
		}
		path := filepath.Join(dataDir, e.Name())
		if err := os.RemoveAll(path); err != nil {
			log.Warn("could not remove what a backup download cut off by a stop left: remove it by hand", "code", CodeBackupLeftover, "path", path, "err", err)
			continue
		}
		log.Info("removed what a backup download cut off by a stop left", "code", CodeBackupLeftover, "path", path)
	}
}

// CodeBackupLeftover is the log code of the working directory of a
// backup download a stopped server left, removed as the next one starts.
const CodeBackupLeftover = "serve.backup_leftover_removed"

// WriteBackupArchive writes to w the backup archive of the data directory
// of the database at dbPath that a server's console and API send: `ql
// backup --archive FILE` (file "" for standard output). A FILE inside the
// data directory is refused as a backup directory there is. The
// database's copy is made beside FILE (on the disk that must hold the
// archive anyway), or in the system's temporary directory, and removed
// however the writing ends. Beside FILE it is in a directory named after
// FILE (archiveWork), which the caller holds FILE's partial file locked
// for: one found there was left by a run killed before its end, and is
// removed first, said on notes.
func WriteBackupArchive(ctx context.Context, dbPath, file string, w, notes io.Writer) (int64, error) {
	a := &archives{layout: LayoutOfDB(dbPath), work: os.TempDir(), nowMs: func() int64 { return time.Now().UnixMilli() }}
	if file != "" {
		if err := checkBackupOutside(filepath.Dir(dbPath), file); err != nil {
			return 0, err
		}
		a.work, a.workName = filepath.Dir(file), archiveWork(file)
		stale := filepath.Join(a.work, a.workName)
		if _, err := os.Lstat(stale); err == nil {
			if err := os.RemoveAll(stale); err != nil {
				return 0, qlerror.Wrap(qlerror.Unavailable, err, "remove %s, the working copy a backup to %s cut off before its end left; remove it by hand", stale, file)
			}
			fmt.Fprintf(notes, "removed %s, the working copy (a copy of the database) a backup to %s cut off before its end left\n", stale, file)
		}
	}
	arch, err := a.Begin(ctx)
	if err != nil {
		return 0, err
	}
	n, err := arch.WriteTo(ctx, w)
	return n, errors.Join(err, arch.Close())
}
