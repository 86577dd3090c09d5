package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/single/attemptlog"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// backupProgressEvery is how many log files are copied between two
// progress lines.
const backupProgressEvery = 1000

// BackupSummary is what a backup copied.
type BackupSummary struct {
	DBBytes  int64
	Logs     int
	LogBytes int64
	Secrets  bool
	// Scripts counts the files of the data directory's scripts folder.
	Scripts int
}

// Backup copies the data directory of the database at dbPath into dest, a
// new (or empty) directory, as a data directory `ql serve --data-dir dest`
// can serve: a consistent copy of the database taken while the server may
// run, then the log files of the attempts that copy holds, then the
// secrets file (mode 0600), then the scripts folder when it is the data
// directory's (files and folders with their modes; links are left out,
// as no link may lead a copy outside it). A log still being written is copied as far as
// it got; the copy's attempt is unfinished, and a server started on the
// copy ends it lost, as after a crash. Logs of attempts admitted after the
// database copy are left out, so no file in the copy lacks its attempt.
// The copy is built in dest's partial directory and published only once
// whole and fsynced, the database last (publishBackup): a dest that holds
// qinglong.db holds a whole copy, and one cut off by SIGKILL or a power
// cut holds none. On failure dest is removed (emptied, when it was given
// empty), so no partial backup is left to be mistaken for a whole one. The
// copy's unfinished attempts forget their processes: a server started on
// it (even on this host) records them lost and never ends the commands
// the live server still runs. Progress goes to progress.
func Backup(ctx context.Context, dbPath, dest string, progress io.Writer) (BackupSummary, error) {
	var sum BackupSummary
	if err := checkBackupOutside(filepath.Dir(dbPath), dest); err != nil {
		return sum, err
	}
	created, err := newBackupDir(dest)
	if err != nil {
		return sum, err
	}
	partial := filepath.Join(dest, PartialBackup)
	to := LayoutOf(dest)
	if err = os.Mkdir(partial, 0o700); err == nil {
		sum, err = backupInto(ctx, LayoutOfDB(dbPath), LayoutOf(partial), to, progress)
	}
	if err == nil {
		err = publishBackup(LayoutOf(partial), to)
	}
	switch {
	case err == nil:
	case created:
		_ = os.RemoveAll(dest)
	default:
		// An empty directory given: leave it empty again.
		for _, p := range []string{partial, to.DB, to.Logs, to.Secrets, to.Scripts} {
			_ = os.RemoveAll(p)
		}
	}
	return sum, err
}

// PartialBackup is the directory inside a backup's destination that the
// copy is built in; a destination still holding it is a backup cut off
// before its end.
const PartialBackup = ".qinglong-backup-partial"

// publishBackup moves a whole copy from the partial directory into the
// destination once every file of it is on disk: the logs and the secrets
// first, the database last, then the directory's entries are synced. A
// destination holding qinglong.db thus holds the whole copy, whatever cut
// the backup short before; the partial directory, emptied, goes.
func publishBackup(from, to Layout) error {
	if err := syncTree(filepath.Dir(from.DB)); err != nil {
		return fmt.Errorf("write the copy to disk: %w", err)
	}
	for _, move := range [][2]string{{from.Logs, to.Logs}, {from.Secrets, to.Secrets}, {from.Scripts, to.Scripts}, {from.DB, to.DB}} {
		if err := os.Rename(move[0], move[1]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("move the finished copy into place: %w", err)
		}
	}
	if err := os.Remove(filepath.Dir(from.DB)); err != nil {
		return fmt.Errorf("remove the emptied %s: %w", PartialBackup, err)
	}
	return syncPath(filepath.Dir(to.DB))
}

// syncWorkers is how many files syncTree syncs at once.
const syncWorkers = 16

// syncTree fsyncs every file of the tree at dir, then its folders'
// entries. The files were written without a sync each: one sync after
// another, each waits for its own journal commit (a backup of thousands
// of logs spent most of its time there), where syncs made together are
// committed together. Each file is still synced on its own, so an error
// writing any of them back fails the backup.
func syncTree(dir string) error {
	var files, folders []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			folders = append(folders, p)
		case d.Type().IsRegular():
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := syncAll(files); err != nil {
		return err
	}
	return syncAll(folders)
}

// syncAll fsyncs paths, syncWorkers at a time, and returns what failed.
func syncAll(paths []string) error {
	next := make(chan string)
	errs := make(chan error, syncWorkers)
	var wg sync.WaitGroup
	for range syncWorkers {
		wg.Go(func() {
			var first error
			for p := range next {
				if err := syncPath(p); err != nil && first == nil {
					first = err
				}
			}
			errs <- first
		})
	}
	for _, p := range paths {
		next <- p
	}
	close(next)
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

// syncPath fsyncs a file, or a directory's entries.
func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return errors.Join(backupSync(f), f.Close())
}

// backupSync fsyncs an open file of a backup. A test replaces it to fail
// a sync as a disk that cannot write a file back does: no file system at
// hand refuses a sync on request.
var backupSync = (*os.File).Sync

// newBackupDir creates dest, or accepts it empty; created says whether
// this backup made it (and may remove it).
func newBackupDir(dest string) (created bool, err error) {
	entries, err := os.ReadDir(dest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dest, 0o700); err != nil {
			return false, qlerror.Wrap(qlerror.Invalid, err, "cannot create the backup directory %s; give a directory this user may create (its parent writable by this user)", dest)
		}
		return true, nil
	case err != nil:
		return false, qlerror.Wrap(qlerror.Invalid, err, "%s cannot be the backup directory; give a new directory", dest)
	case len(entries) > 0:
		return false, qlerror.New(qlerror.Invalid, "%s is not empty; give a new or empty directory for the backup", dest)
	}
	// Another user who may write into the directory could replace the
	// copy's database before it is restored, and it would be served.
	if info, err := os.Stat(dest); err == nil && info.Mode().Perm()&0o022 != 0 {
		return false, qlerror.New(qlerror.Invalid, "%s may be written by group or others (mode %04o), who could replace the copy before a restore; run chmod 700 %s, or give a new directory", dest, info.Mode().Perm(), dest)
	}
	return false, nil
}

// backupInto copies from into to; progress names the files where they
// will be once published (shown).
func backupInto(ctx context.Context, from, to, shown Layout, progress io.Writer) (BackupSummary, error) {
	var sum BackupSummary
	logged, err := sqlitestore.BackupTo(ctx, from.DB, to.DB)
	if err != nil {
		return sum, err
	}
	if st, err := os.Stat(to.DB); err == nil {
		sum.DBBytes = st.Size()
	}
	fmt.Fprintf(progress, "database: %s (%d bytes)\n", shown.DB, sum.DBBytes)
	if err := os.MkdirAll(to.Logs, 0o700); err != nil {
		return sum, err
	}
	for i, id := range logged {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		n, err := copyFile(attemptlog.Path(from.Logs, id), attemptlog.Path(to.Logs, id), 0o600)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// Retention removed it after the copy was taken.
		case err != nil:
			return sum, fmt.Errorf("copy the log of attempt %s: %w", id, err)
		default:
			sum.Logs++
			sum.LogBytes += n
		}
		if (i+1)%backupProgressEvery == 0 {
			fmt.Fprintf(progress, "logs: %d of %s\n", i+1, plural.Count(len(logged), "file", "files"))
		}
	}
	fmt.Fprintf(progress, "logs: %s (%s)\n", plural.Count(sum.Logs, "file", "files"), plural.Count(sum.LogBytes, "byte", "bytes"))
	switch _, err := copyFile(from.Secrets, to.Secrets, 0o600); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return sum, fmt.Errorf("copy the secrets file: %w", err)
	default:
		sum.Secrets = true
		fmt.Fprintf(progress, "secrets: %s (mode 0600: it holds the secrets' values)\n", shown.Secrets)
	}
	switch n, err := copyScripts(ctx, from.Scripts, to.Scripts); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return sum, fmt.Errorf("copy the scripts folder: %w", err)
	default:
		sum.Scripts = n
		fmt.Fprintf(progress, "scripts: %s (%s)\n", shown.Scripts, plural.Count(n, "file", "files"))
	}
	return sum, nil
}

// copyScripts copies the scripts folder src into dst, a new folder:
// what eachScript visits, with its modes. It returns how many files it
// copied.
func copyScripts(ctx context.Context, src, dst string) (int, error) {
	n := 0
	err := eachScript(ctx, src, func(r *os.Root, p string, info fs.FileInfo) error {
		target := filepath.Join(dst, filepath.FromSlash(p))
		if info.IsDir() {
			if err := os.Mkdir(target, 0o700); err != nil {
				return err
			}
			return os.Chmod(target, info.Mode().Perm())
		}
		in, err := r.Open(p)
		if err != nil {
			return err
		}
		defer in.Close() //nolint:errcheck // read only
		if _, err := copyTo(in, target, info.Mode().Perm()); err != nil {
			return err
		}
		n++
		return nil
	})
	return n, err
}

// eachScript visits the scripts folder dir, itself first (as "."), then
// its folders and regular files, read through an os.Root so that nothing
// outside dir is visited; links and other kinds of file are passed over,
// a folder that does not exist is an
// error fs.ErrNotExist matches.
func eachScript(ctx context.Context, dir string, visit func(r *os.Root, p string, info fs.FileInfo) error) error {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer r.Close() //nolint:errcheck // read only
	return fs.WalkDir(r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !d.IsDir() && !info.Mode().IsRegular() {
			return nil
		}
		return visit(r, p, info)
	})
}

// copyFile copies src to a new file dst with mode perm.
func copyFile(src, dst string, perm fs.FileMode) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close() //nolint:errcheck // read only
	return copyTo(in, dst, perm)
}

// copyTo copies in to a new file dst with mode perm, whatever the umask,
// its holes left holes (copyData). It does not sync: publishBackup syncs
// the whole copy at once (syncTree).
func copyTo(in *os.File, dst string, perm fs.FileMode) (int64, error) {
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return 0, err
	}
	if err := out.Chmod(perm); err != nil {
		_ = out.Close()
		return 0, err
	}
	n, err := copyData(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// Whence values of lseek(2) that find a file's data and holes.
const (
	seekData = 3
	seekHole = 4
)

// copyData copies in, as many bytes as it holds now, to out, a new empty
// file, leaving in's holes holes in out: a sparse file (a log extended by
// truncate, a database's preallocated tail) takes in the copy only the
// blocks it takes where it is, where a plain copy writes every hole out
// as zeros. A file system that tells no holes shows the file as one run
// of data, copied whole.
func copyData(out, in *os.File) (int64, error) {
	info, err := in.Stat()
	if err != nil {
		return 0, err
	}
	size := info.Size()
	for pos := int64(0); pos < size; {
		data, err := in.Seek(pos, seekData)
		if errors.Is(err, syscall.ENXIO) {
			break // only a hole is left, up to size
		}
		if err != nil {
			return 0, err
		}
		hole, err := in.Seek(data, seekHole)
		if err != nil {
			return 0, err
		}
		hole = min(hole, size)
		if data >= hole {
			break
		}
		if _, err := in.Seek(data, io.SeekStart); err != nil {
			return 0, err
		}
		if _, err := out.Seek(data, io.SeekStart); err != nil {
			return 0, err
		}
		if _, err := io.CopyN(out, in, hole-data); err != nil {
			return 0, err
		}
		pos = hole
	}
	return size, out.Truncate(size)
}
