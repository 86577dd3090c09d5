package server

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// CodeTakenBack is the log code of a server taking back a database that
// was handed over (`serve --take-back`).
const CodeTakenBack = "serve.taken_back"

// RefusalHandedOver is a server refused on a database that was handed over
// to another (`export --with-state`): the target runs its triggers.
const RefusalHandedOver = run.RefusalHandedOver

// HandoverLock is an export's hold on a data directory it hands over: the
// server's locks, so no server starts while its schedule positions are
// read.
type HandoverLock struct {
	dir *dirLock
	db  *dbLock
}

// HandOver marks the database at dbPath handed over by actor, once no
// server serves it, and holds the data directory's server lock until
// Release, so that no server starts while the caller reads the schedule
// positions it exports: a server running meanwhile would admit
// occurrences after the positions read, which the target would admit
// again. The mark is written first and durably: from then on a server on
// the file is refused (RefusalHandedOver) until taken back.
func HandOver(ctx context.Context, dbPath string, p Profile, actor string) (*HandoverLock, error) {
	layout := LayoutOfDB(dbPath)
	dir := filepath.Dir(dbPath)
	if err := refuseServedAtHandover(layout, dir); err != nil {
		return nil, err
	}
	lock, err := lockDataDir(dir, layout.Lock, Holder{HandingOver: true})
	if err != nil {
		return nil, err
	}
	h := &HandoverLock{dir: lock}
	if h.db, err = lockDatabase(dir, dbPath); err != nil {
		h.Release() //nolint:errcheck // the lock error is the one returned
		return nil, err
	}
	// The mark it writes is a write no clean stop vouches for.
	if err := discardCleanStop(dbPath); err != nil {
		h.Release() //nolint:errcheck // the mark's error is the one returned
		return nil, err
	}
	nowMs := func() int64 { return time.Now().UnixMilli() }
	st, _, err := openStore(ctx, dbPath, p, p, nowMs, integrityWatch{}, nil)
	if err != nil {
		h.Release() //nolint:errcheck // the open error is the one returned
		return nil, err
	}
	// The directory is recorded as the export named it, absolute, so the
	// refusal on a copy elsewhere names the export as it was run.
	exported, aerr := filepath.Abs(dir)
	if aerr != nil {
		exported = dir
	}
	err = st.MarkHandedOver(ctx, sqlitestore.Handover{AtMs: nowMs(), Actor: actor, DataDir: exported})
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		h.Release() //nolint:errcheck // the mark's error is the one returned
		return nil, err
	}
	return h, nil
}

// Release drops the locks HandOver took; the mark stays.
func (h *HandoverLock) Release() error {
	var err error
	if h.db != nil {
		err = h.db.release()
	}
	if rerr := h.dir.release(); err == nil {
		err = rerr
	}
	return err
}

// refuseServedAtHandover refuses to hand over a data directory a server
// serves: its schedule moves on while the positions are read.
func refuseServedAtHandover(l Layout, dir string) error {
	who, err := servedBy(l, dir)
	if err != nil || who == "" {
		return err
	}
	return qlerror.New(qlerror.FailedPrecondition,
		"%s is serving the data directory %s: exporting with --with-state hands its schedules over, so no server may run them meanwhile; stop the server, export, then start the target", who, dir).
		Because(RefusalServedAtHandover, "dataDir", dir)
}

// RefusalServedAtHandover is an export with state refused because a server
// serves the database it would hand over.
const RefusalServedAtHandover qlerror.Reason = "handover_while_served"

// handedOver is the refusal of a server on a database marked handed over.
// A database copied from where it was exported names the directory the
// export ran on, not this one.
func handedOver(dir string, h sqlitestore.Handover, binary, takeBack string) error {
	at := time.UnixMilli(h.AtMs).UTC().Format(time.RFC3339)
	from := ""
	if h.DataDir != "" && !sameDir(h.DataDir, dir) {
		from = " on " + h.DataDir + ", of which this is a copy"
	}
	return qlerror.New(qlerror.FailedPrecondition,
		"the database of %s was handed over at %s (by %s, `%s export --with-state`%s): its triggers run where its state was applied, and a server here would run their occurrences a second time; "+
			"to move back, stop every server of the target first (its schedules move on while they run), then start this one with `%s` (docs/operations.md, \"Moving from standalone to the cluster (and back)\")",
		dir, at, h.Actor, binary, from, takeBack).
		Because(RefusalHandedOver, "dataDir", dir, "at", at)
}

// sameDir says whether a and b name one directory, as their absolute
// paths.
func sameDir(a, b string) bool {
	absB, err := filepath.Abs(b)
	return err == nil && filepath.Clean(a) == absB
}

// CodeNothingToTakeBack is the log code of `serve --take-back` on a
// database that was not handed over: the flag did nothing.
const CodeNothingToTakeBack = "serve.nothing_to_take_back"

// refuseHandedOverUnlessTakenBack refuses to serve a database handed over
// to another, before the recovery or a round writes anything: the target
// runs its triggers. Given TakeBack, it clears the mark instead and says
// so at WARN, with the Runs the database held queued at the handover,
// which this server starts now however late (they were admitted
// occurrences); from then on this server runs the triggers. TakeBack on a
// database with no mark says there was nothing to take back, so that a
// flag left on a service's command line is seen.
func (s *Server) refuseHandedOverUnlessTakenBack(ctx context.Context) error {
	h, marked, err := s.store.HandedOver(ctx)
	if err != nil {
		return err
	}
	if !marked {
		if s.cfg.TakeBack {
			s.cfg.Logger.Warn("--take-back given, but this database was not handed over: there was nothing to take back; leave the flag out of the server's command line",
				"code", CodeNothingToTakeBack, "db", s.layout.DB)
		}
		return nil
	}
	if !s.cfg.TakeBack {
		return handedOver(s.cfg.DataDir, h, s.cfg.Binary, s.command("serve --take-back"))
	}
	queued, oldestMs, err := s.store.Queued(ctx)
	if err != nil {
		return err
	}
	if _, err := s.store.TakeBack(ctx); err != nil {
		return err
	}
	at := time.UnixMilli(h.AtMs).UTC().Format(time.RFC3339)
	attrs := []any{"code", CodeTakenBack, "db", s.layout.DB, "handed_over_at", at, "by", h.Actor, "queued_runs", queued}
	runs := "no Run was left queued"
	if queued > 0 {
		late := time.Since(time.UnixMilli(oldestMs)).Round(time.Second)
		attrs = append(attrs, "oldest_queued_at", time.UnixMilli(oldestMs).UTC().Format(time.RFC3339), "oldest_queued_for_ms", late.Milliseconds())
		runs = fmt.Sprintf("the Run it held queued runs now, queued %s ago", late)
		if queued > 1 {
			runs = fmt.Sprintf("the %d Runs it held queued run now, the oldest queued %s ago", queued, late)
		}
	}
	s.cfg.Logger.Warn("took back the database handed over at "+at+": its triggers run here again; "+runs+"; no server of the database it was handed to may run meanwhile", attrs...)
	return nil
}
