package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/single/executor"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// Backend is a single-node database opened for the CLI's apply and read
// commands (not for serving).
type Backend struct {
	Store   *sqlitestore.Store
	Catalog catalog.Service
	Layout  Layout
	// Migrated lists the migrations the open applied to a file that
	// existed before (an older build's); a file the open created lists
	// none, as the server's start logs none for it.
	Migrated []string
	// HeldNone says the file existed but held no QingLong database (an
	// empty file, which took every migration): said as that, never as an
	// older build's database migrated.
	HeldNone bool
	// nowMs is the clock the store dates its writes by.
	nowMs func() int64
}

// SayCheckBytes is the size from which OpenBackend says it reads the
// whole file before it does: about half a second's read, cached; a
// smaller file is read before anyone would wonder.
const SayCheckBytes = 64 << 20

// OpenBackend opens (creating and migrating if needed) the database file
// dbPath, so `ql apply` works before the first `ql serve`. A file no
// server serves is read whole first, as a start reads it, since a command
// must not write into a corrupt file either; say (when not nil) is told
// before that read of a file of SayCheckBytes or more, which takes
// seconds a gigabyte. A file a server serves
// is not read again: the server read it as it started, and holds itself
// on the first corrupt page it meets since; reading gigabytes beside it
// kept a command silent for over a minute.
func OpenBackend(ctx context.Context, dbPath string, say func(string)) (*Backend, error) {
	return OpenBackendMaking(ctx, dbPath, Standalone, say)
}

// OpenBackendMaking is OpenBackend (standalone's connection settings)
// making a database it creates as profile p's server would (its page
// size): `serve --example` applies the sample before the server opens a
// new file, and a command of the edge binary may create the file before
// the first `serve`.
func OpenBackendMaking(ctx context.Context, dbPath string, p Profile, say func(string)) (*Backend, error) {
	// The directory too, as `ql serve` makes it: a first `ql apply` (or
	// `serve --example`, which applies before serving) into a new
	// --data-dir must not fail where the server would have started.
	if dir := filepath.Dir(dbPath); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, qlerror.Wrap(qlerror.Unavailable, err, "create the data directory %s; check that its parent is writable, or give another --data-dir", dir)
		}
	}
	info, statErr := os.Stat(dbPath)
	serving, err := Serving(LayoutOfDB(dbPath))
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "look for a server serving %s", dbPath)
	}
	wholeFile := !serving && statErr == nil && info.Size() > 0
	if !serving {
		// Before this command opens the file for writing: the next
		// server start reads it whole, whatever this command leaves.
		if err := discardCleanStop(dbPath); err != nil {
			return nil, err
		}
	}
	if wholeFile && say != nil && info.Size() >= SayCheckBytes {
		say(fmt.Sprintf("checking %s (%.1f MiB) with SQLite's quick_check before writing to it (about 8 ms a MiB, more from a slow disk); a command beside a running server skips this", dbPath, float64(info.Size())/(1<<20)))
	}
	nowMs := func() int64 { return time.Now().UnixMilli() }
	var building func(sqlitestore.LongStep)
	if say != nil {
		building = func(b sqlitestore.LongStep) { say(longStepText(b)) }
	}
	st, applied, err := openStore(ctx, dbPath, Standalone, p, nowMs, integrityWatch{skip: !wholeFile}, building)
	if err != nil {
		return nil, err
	}
	if narrowed := st.NarrowedCompanions(); len(narrowed) > 0 && say != nil {
		say(narrowedCompanions(narrowed))
	}
	b := &Backend{
		Store:   st,
		Catalog: catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: nowMs},
		Layout:  LayoutOfDB(dbPath),
		nowMs:   nowMs,
	}
	switch {
	case errors.Is(statErr, fs.ErrNotExist):
	case len(applied) == len(sqlitestore.Stream()):
		b.HeldNone = true
	default:
		b.Migrated = applied
	}
	return b, nil
}

// RefuseClockBehind is the refusal of a command's write while the clock
// its writes are dated by reads behind the newest time the database
// recorded, measured as a server's hold measures it (ClockBehind); nil
// when it does not. override is the flag that writes all the same.
func (b *Backend) RefuseClockBehind(ctx context.Context, override string) error {
	now := b.nowMs()
	newest, behind, err := ClockBehind(ctx, b.Store, now)
	if err != nil || !behind {
		return err
	}
	return hold.ClockBehindDatabaseCommand(now, newest, override)
}

// ReadLog copies at most max bytes of an attempt's captured output from
// offset on to w. The executor marks a log cut at its cap on the attempt,
// not in the file, so truncated is always false here: readers take it from
// the attempt. A read whose caller's time is already up is not begun.
func (b *Backend) ReadLog(ctx context.Context, attemptID string, offset, max int64, w io.Writer) (next int64, truncated bool, err error) {
	if err := ctx.Err(); err != nil {
		return offset, false, err
	}
	next, err = executor.ReadLogUpTo(b.Layout.Logs, attemptID, offset, max, w)
	return next, false, err
}

// Close closes the database.
func (b *Backend) Close() { _ = b.Store.Close() }
