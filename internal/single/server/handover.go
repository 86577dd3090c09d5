package server

import (
	"context"
	"path/filepath"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// CodeTakenBack is the log code of a server taking back a database that
// was handed over (`serve --take-back`).
const CodeTakenBack = "serve.taken_back"

// RefusalHandedOver is a server refused on a database that was handed over
// to another (`export --with-state`): the target runs its triggers.
const RefusalHandedOver qlerror.Reason = "database_handed_over"

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
	nowMs := func() int64 { return time.Now().UnixMilli() }
	st, _, err := openStore(ctx, dbPath, p, p, nowMs, integrityWatch{}, nil)
	if err != nil {
		h.Release() //nolint:errcheck // the open error is the one returned
		return nil, err
	}
	err = st.MarkHandedOver(ctx, nowMs(), actor)
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
func handedOver(dir string, h sqlitestore.Handover, binary, takeBack string) error {
	at := time.UnixMilli(h.AtMs).UTC().Format(time.RFC3339)
	return qlerror.New(qlerror.FailedPrecondition,
		"the database of %s was handed over at %s (by %s, `%s export --with-state`): its triggers run where its state was applied, and a server here would run their occurrences a second time; "+
			"to move back, stop every server of the target first (its schedules move on while they run), then start this one with `%s` (docs/operations.md, \"Moving from standalone to the cluster (and back)\")",
		dir, at, h.Actor, binary, takeBack).
		Because(RefusalHandedOver, "dataDir", dir, "at", at)
}

// refuseHandedOverUnlessTakenBack refuses to serve a database handed over
// to another, before the recovery or a round writes anything: the target
// runs its triggers. Given TakeBack, it clears the mark instead and says
// so at WARN: from then on this server runs them.
func (s *Server) refuseHandedOverUnlessTakenBack(ctx context.Context) error {
	h, marked, err := s.store.HandedOver(ctx)
	if err != nil || !marked {
		return err
	}
	if !s.cfg.TakeBack {
		return handedOver(s.cfg.DataDir, h, s.cfg.Binary, s.command("serve --take-back"))
	}
	if _, err := s.store.TakeBack(ctx); err != nil {
		return err
	}
	at := time.UnixMilli(h.AtMs).UTC().Format(time.RFC3339)
	s.cfg.Logger.Warn("took back the database handed over at "+at+": its triggers run here again; no server of the database it was handed to may run meanwhile",
		"code", CodeTakenBack, "db", s.layout.DB, "handed_over_at", at, "by", h.Actor)
	return nil
}
