package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/qinglong/qinglong/internal/core/privatefile"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// VacuumSuffix names the compacted copy a vacuum writes beside the
// database file (qinglong.db.vacuum) before it replaces the file; one
// left there is a vacuum cut off before its end, which the next removes.
const VacuumSuffix = ".vacuum"

// vacuumProgressEvery is how often a running vacuum says how far its copy
// got.
const vacuumProgressEvery = 10 * time.Second

// VacuumSummary is what a vacuum did.
type VacuumSummary struct {
	Before, After int64
	Took          time.Duration
}

// Vacuum rewrites the database file at dbPath compactly: SQLite's VACUUM
// INTO writes a copy with no free or half-empty page beside it, which is
// fsynced and then renamed over the file, and the directory fsynced. The
// rename is atomic, so a vacuum cut off at any point (an interrupt,
// SIGKILL, a power cut) leaves either the old file or the whole new one,
// never a mix; a copy it left behind is removed by the next vacuum. It
// refuses while a server serves the data directory, and holds the
// server's locks (dirLock, dbLock) meanwhile, so no server starts on the
// file it replaces; it refuses while any other process has the database
// open through a store, and keeps every store from opening it meanwhile
// (sqlitestore.LockOpenersOut), so none writes into the -wal file of the
// file it replaced; and it refuses, before writing anything, a disk
// without room for a copy as large as the file. Progress goes to progress.
// The copy has the pages profile p's server gives a database it makes: an
// edge database an earlier build made with 4 KiB pages leaves with the
// edge's 1 KiB, which write about a third as much per Run.
func Vacuum(ctx context.Context, dbPath string, p Profile, progress io.Writer) (VacuumSummary, error) {
	var sum VacuumSummary
	layout := LayoutOfDB(dbPath)
	dir := filepath.Dir(dbPath)
	if err := refuseServed(layout, dir); err != nil {
		return sum, err
	}
	lock, err := lockDataDir(dir, layout.Lock, Holder{Vacuum: true})
	if err != nil {
		return sum, err
	}
	defer lock.release() //nolint:errcheck // the vacuum's outcome is decided; the lock drops with the process anyway
	// Resolved, so a qinglong.db linked from elsewhere is replaced where it
	// lives and the link kept.
	file, err := filepath.EvalSymlinks(dbPath)
	if err != nil {
		return sum, qlerror.Wrap(qlerror.NotFound, err, "no QingLong database at %s", dbPath)
	}
	info, err := os.Stat(file)
	if err != nil {
		return sum, qlerror.Wrap(qlerror.Unavailable, err, "read %s", file)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		return sum, qlerror.New(qlerror.FailedPrecondition,
			"%s has %d hard links: a vacuum replaces the file by a new one, which the other links would not follow; remove the other links (find / -samefile %s) and run the vacuum again", file, st.Nlink, file)
	}
	dbl, err := lockDatabase(dir, file)
	if err != nil {
		return sum, err
	}
	// Released after the store's connection closed (see dbLock).
	defer dbl.release() //nolint:errcheck // as the directory's lock
	// The copy replacing the file is a new file no clean stop vouches for.
	if err := discardCleanStop(dbPath); err != nil {
		return sum, err
	}
	openers, err := sqlitestore.LockOpenersOut(file)
	if err != nil {
		return sum, err
	}
	defer openers.Release() //nolint:errcheck // as the directory's lock
	sum.Before = info.Size()
	copyPath := file + VacuumSuffix
	if err := removeLeftCopy(copyPath, progress); err != nil {
		return sum, err
	}
	if err := checkVacuumRoom(file, sum.Before); err != nil {
		return sum, err
	}
	fmt.Fprintf(progress, "vacuuming %s (%.1f MiB): writing its compacted copy to %s, which then replaces it; an interrupted vacuum leaves the database as it was\n", file, mib(sum.Before), copyPath)
	pageBytes := 0
	if p == Edge {
		if was := sqlitestore.PageBytesOf(file, edgePageBytes); was != edgePageBytes {
			pageBytes = edgePageBytes
			fmt.Fprintf(progress, "the copy takes the edge's pages of %d bytes (the file has %d), which write about a third as much per Run\n", edgePageBytes, was)
		}
	}
	start := time.Now()
	err = writeVacuumCopy(ctx, file, copyPath, pageBytes, progress, start)
	if err == nil {
		err = replaceByCopy(file, copyPath)
	}
	if err != nil {
		_ = os.Remove(copyPath)
		return sum, err
	}
	sum.Took = time.Since(start)
	if after, err := os.Stat(file); err == nil {
		sum.After = after.Size()
	}
	return sum, nil
}

// refuseServed refuses a vacuum of a data directory a server serves,
// naming the server's pid when its record does.
func refuseServed(l Layout, dir string) error {
	who, err := servedBy(l, dir)
	if err != nil || who == "" {
		return err
	}
	return qlerror.New(qlerror.FailedPrecondition,
		"%s is serving the data directory %s: a vacuum rewrites the whole database file and runs only while no server does; stop the server, run the vacuum, then start the server again", who, dir)
}

// servedBy names what serves the data directory of l ("a server", with
// its pid when its record gives it), "" when nothing does. A vacuum
// holding the lock is refused as a vacuum running, whatever asked.
func servedBy(l Layout, dir string) (string, error) {
	serving, err := Serving(l)
	if err != nil {
		return "", qlerror.Wrap(qlerror.Unavailable, err, "look for a server's lock on %s", l.Lock)
	}
	if !serving {
		return "", nil
	}
	who := "a server"
	if h, ok := readHolder(l.Lock); ok {
		if h.Vacuum {
			return "", vacuuming(h, dir)
		}
		who += " (pid " + strconv.Itoa(h.PID) + ")"
	}
	return who, nil
}

// removeLeftCopy removes the copy a vacuum cut off before its end left.
func removeLeftCopy(path string, progress io.Writer) error {
	err := os.Remove(path)
	switch {
	case err == nil:
		fmt.Fprintf(progress, "removed %s, the unfinished copy of an earlier vacuum that was cut off\n", path)
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return nil
	}
	return qlerror.Wrap(qlerror.Unavailable, err, "remove %s, the unfinished copy of an earlier vacuum", path)
}

// checkVacuumRoom refuses a disk without room for the copy: at most as
// large as the file, and both are on the disk until the rename.
func checkVacuumRoom(file string, size int64) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(file), &st); err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "read the free space of the disk holding %s", file)
	}
	// Bsize is an int32 on 32-bit ARM and an int64 on amd64.
	room := int64(st.Bavail) * int64(st.Bsize) //nolint:gosec,unconvert // G115: free blocks fit an int64 on any disk
	if room < size {
		return qlerror.New(qlerror.Unavailable,
			"not enough free space to vacuum %s: its compacted copy is written beside it before it replaces it, and may be as large as the file, %.1f MiB; the disk holding %s has %.1f MiB free: free %.1f MiB more there and run the vacuum again",
			file, mib(size), filepath.Dir(file), mib(room), mib(size-room))
	}
	return nil
}

// writeVacuumCopy writes the compacted copy into copyPath, created first
// with mode 0600 (VACUUM INTO keeps the mode of the empty file it fills,
// and would otherwise give the copy the umask's), and fsyncs it; it says
// how far the copy got every vacuumProgressEvery.
func writeVacuumCopy(ctx context.Context, file, copyPath string, pageBytes int, progress io.Writer, start time.Time) error {
	if err := privatefile.Create(copyPath); err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "create %s for the vacuum's copy; check that this user may write %s", copyPath, filepath.Dir(copyPath))
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(vacuumProgressEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if info, err := os.Stat(copyPath); err == nil {
					fmt.Fprintf(progress, "vacuum: %.1f MiB of the copy written after %s\n", mib(info.Size()), time.Since(start).Round(time.Second))
				}
			}
		}
	}()
	err := sqlitestore.VacuumInto(ctx, file, copyPath, pageBytes)
	close(done)
	<-stopped
	if err != nil {
		return err
	}
	if err := syncFile(copyPath); err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "the vacuum's copy could not be written to disk, so it did not replace %s, which is as it was; "+
			"check the disk (the system log says what failed) and run the vacuum again", file)
	}
	return nil
}

// replaceByCopy renames the copy over the file and fsyncs the directory,
// so the rename itself survives a power cut. The database's -wal file is
// empty then (VacuumInto), and its -shm file is rebuilt by the next
// process that opens the file alone. A directory that cannot be written to
// disk is reported: the file is the whole copy, but a power cut may bring
// back the file as it was, whole too.
func replaceByCopy(file, copyPath string) error {
	if info, err := os.Stat(file + "-wal"); err == nil && info.Size() > 0 {
		return qlerror.New(qlerror.FailedPrecondition,
			"another process wrote to %s while it was vacuumed; the database is unchanged: stop every command using the data directory and run the vacuum again", file)
	}
	if err := os.Rename(copyPath, file); err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "move the vacuum's copy %s over %s", copyPath, file)
	}
	if err := syncFile(filepath.Dir(file)); err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "the vacuum's compacted copy replaced %s, but the directory holding it could not be written to disk: "+
			"the database is whole, and a power cut before the disk writes it may bring back the file as it was before the vacuum, whole too; "+
			"check the disk (the system log says what failed)", file)
	}
	return nil
}

// syncFile fsyncs the file or directory at path.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "open %s to write it to disk", path)
	}
	err = fileSync(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "write %s to disk", path)
	}
	return nil
}

// fileSync fsyncs an open file for syncFile. A test replaces it to fail
// a sync as a disk that cannot write a file back does: no file system at
// hand refuses a sync on request.
var fileSync = (*os.File).Sync

func mib(n int64) float64 { return float64(n) / (1 << 20) }
