package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/loop"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/privatefile"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/scripts"
	"github.com/qinglong/qinglong/internal/core/shellquote"
	"github.com/qinglong/qinglong/internal/single/executor"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// Server is a started single-node server.
type Server struct {
	cfg    Config
	layout Layout
	// scriptsFolder is cfg.ScriptsDir, the one the console changes.
	scriptsFolder *scripts.Folder
	// scriptsHidden names the --run-as account that cannot reach the
	// scripts folder, which the console's Scripts page says; "" when it
	// can.
	scriptsHidden string
	lock          *dirLock
	dbLock        *dbLock
	store         *sqlitestore.Store
	owner         *executor.Owner
	disp          *executor.Dispatcher
	sched         *loop.Loop
	notify        *loop.Loop
	retain        *loop.Loop
	diag          schedule.Diagnostics
	// backups makes the backup archives the console and the API send,
	// one at a time.
	backups *archives
	// clock moves back the cursors a clock that went back left ahead
	// (schedule.ClockWatch); only the scheduler's goroutine uses it.
	clock schedule.ClockWatch
	// clockHold holds the rounds and retention while the clock reads
	// behind the database (clockhold.go).
	clockHold clockHold
	// gap warns of time the scheduler did not run (gap.go); only the
	// scheduler's goroutine uses it.
	gap  gapWatch
	http *httpserve.Server
	// httpSwap and metricsSwap are what the listeners serve: the starting
	// answers until the database is open, then the API and the metrics.
	// httpTLS says the HTTP listener serves HTTPS.
	httpSwap, metricsSwap swapHandler
	httpTLS               bool
	// checking is set while the start checks the database file's
	// integrity, and migrating from the first migration step it says
	// (one that reads every Run or attempt) until the migrations are
	// done: readiness names each.
	checking, migrating atomic.Bool
	// api is set once the HTTP listener is bound; metrics scraped before
	// read it too.
	api   atomic.Pointer[httpapi.Handler]
	ready atomic.Bool
	// stopping is set once the stop begins: readiness then says draining.
	stopping atomic.Bool
	// metrics and metricsHTTP exist only with a metrics address.
	metrics     *metrics.Metrics
	metricsHTTP *httpserve.Server
	// httpLn and metricsLn are the addresses bound before the database is
	// opened, until their servers take them.
	httpLn, metricsLn net.Listener
	// watcher looks at the database path every look period; watch exists
	// only when the cadence is longer than the watch period. watchFailing,
	// movedSince and movedLogged belong to the watcher's goroutine.
	watch        *sqlitestore.CommitWatch
	watcher      *loop.Loop
	watchFailing bool
	// dbFile is the database file as opened; moved is set while the path
	// names another file (or none), which holds the scheduler, the
	// dispatcher, the notifications' claims, retention, and the API's and
	// the console's writes. admitting is held for reading by each
	// scheduler round, each write the API or the console admits (writes),
	// each start of a command until its process exists (the dispatcher's
	// Admit), each claim and each retention batch, and for writing to set
	// moved.
	dbFile      os.FileInfo
	moved       atomic.Bool
	admitting   sync.RWMutex
	movedSince  time.Time
	movedLogged time.Time
	// corrupt is set once the store met a corrupt page (checkCorruption)
	// and holds what moved holds, until the server stops.
	corrupt atomic.Bool
	// setup is the first owner's setup code while no account exists (nil
	// otherwise); the stop closes it, which removes its file.
	setup *account.SetupCode

	stopOnce sync.Once
	stopErr  error
}

// Serve starts a server and runs it until ctx ends, then stops it.
func Serve(ctx context.Context, cfg Config) error {
	s, err := Start(ctx, cfg)
	if err != nil && ctx.Err() != nil {
		// Asked to stop while starting (a SIGTERM during recovery): Start
		// has undone what it began, and whatever step the stop cut short
		// failed because of it, so this is a clean stop, as one after the
		// start would be. The step's error is kept in the log.
		cfg.WithDefaults().Logger.Info("stopped while starting", "code", CodeStoppedWhileStarting, "error", err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	<-ctx.Done()
	return s.Stop(context.WithoutCancel(ctx))
}

// Start validates cfg and brings the server up in order; on any failure it
// undoes what it started and returns the error.
func Start(ctx context.Context, cfg Config) (srv *Server, err error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// Attempts record their log paths; an absolute data directory keeps
	// those valid whatever directory a later `ql runs logs` runs in.
	if cfg.DataDir, err = filepath.Abs(cfg.DataDir); err != nil {
		return nil, qlerror.Wrap(qlerror.Invalid, err, "data directory %s", cfg.DataDir)
	}
	// Commands get it in $QL_SCRIPTS_DIR, from whatever directory they
	// start in.
	if cfg.ScriptsDir, err = filepath.Abs(cfg.ScriptsDir); err != nil {
		return nil, qlerror.Wrap(qlerror.Invalid, err, "scripts folder %s", cfg.ScriptsDir)
	}
	s := &Server{cfg: cfg, layout: LayoutOf(cfg.DataDir), scriptsFolder: &scripts.Folder{Dir: cfg.ScriptsDir}}
	// Before anything is created in it: a cut-off backup, or logs whose
	// database is missing, would be served with a new, empty database.
	if err := checkNotRemains(s.layout, cfg.DataDir); err != nil {
		return nil, err
	}
	_, dirErr := os.Stat(cfg.DataDir)
	created := errors.Is(dirErr, fs.ErrNotExist)
	defer func() {
		if err != nil {
			s.undoStart(context.WithoutCancel(ctx), created)
		}
	}()
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "create the data directory %s", cfg.DataDir)
	}
	// First: a second server on the directory must fail having opened,
	// migrated, recovered and released nothing.
	if s.lock, err = lockDataDir(cfg.DataDir, s.layout.Lock, Holder{Concurrency: cfg.Concurrency}); err != nil {
		return nil, err
	}
	// Then the database file itself, which a link may make another
	// directory's too (dbLock).
	if s.dbLock, err = lockDatabase(cfg.DataDir, s.layout.DB); err != nil {
		return nil, err
	}
	sayIfShared(cfg.Logger, cfg.DataDir)
	removeLeftDownloads(cfg.DataDir, cfg.Logger)
	if !cfg.RunAs.IsZero() {
		if err := process.CheckRunAs(cfg.RunAs); err != nil {
			return nil, err
		}
	}
	warnIfTasksNotIsolated(cfg.Logger, cfg.DataDir, cfg.RunAs)
	// Bound before the database is opened (or created, on a first start):
	// a start that cannot take its addresses fails having made nothing.
	if err := s.bind(); err != nil {
		return nil, err
	}
	if err := s.serveWhileStarting(); err != nil {
		return nil, err
	}
	// Before anything opens the file for writing: from here a crash
	// leaves no mark, so the start after it reads the whole file.
	cleanStop, reason, err := takeCleanStop(cfg.DataDir, s.layout.DB, cfg.build())
	if err != nil {
		return nil, err
	}
	if s.dbLock.created {
		reason = "the database file is new"
	}
	if cfg.IntegrityCheck == CheckAlways {
		cleanStop, reason = time.Time{}, "--integrity-check is always"
	}
	if cfg.BeforeOpen != nil {
		if err := cfg.BeforeOpen(ctx); err != nil {
			return nil, err
		}
	}
	// The database lock made a missing file, empty: it is new unless
	// --example's apply filled it meanwhile.
	info, statErr := os.Stat(s.layout.DB)
	newFile := s.dbLock.created && statErr == nil && info.Size() == 0
	var migrated []string
	s.store, migrated, err = openStore(ctx, s.layout.DB, cfg.Profile, cfg.Profile, cfg.NowMs, s.integrityWatch(cleanStop, reason), s.sayMigrationStep)
	s.migrating.Store(false)
	if err != nil {
		return nil, err
	}
	if narrowed := s.store.NarrowedCompanions(); len(narrowed) > 0 {
		cfg.Logger.Warn(narrowedCompanions(narrowed), "code", CodeDBFilesNarrowed, "files", narrowed)
	}
	// A file that held no QingLong database took every migration: an
	// empty file (a restore or a copy cut short, or one made by hand),
	// not an older build's database.
	filled := !newFile && len(migrated) == len(sqlitestore.Stream())
	if len(migrated) > 0 && !newFile && !filled {
		// An upgrade: the file is now this build's, which an older build
		// refuses to open; going back means restoring the backup taken
		// before it.
		cfg.Logger.Info("migrated the database to this build's schema; older builds no longer open it", "code", CodeMigrated, "db", s.layout.DB, "applied", migrated)
	}
	if err := s.recordDatabaseFile(); err != nil {
		return nil, err
	}
	if err := s.store.OpenReaders(ctx); err != nil {
		return nil, err
	}
	if err := s.refuseHandedOverUnlessTakenBack(ctx); err != nil {
		return nil, err
	}
	switch {
	case newFile:
		// A mistyped --data-dir (or a restore into the wrong directory)
		// would otherwise serve a new, empty database as quietly as the
		// real one, and nothing would ever run.
		cfg.Logger.Warn("created a new, empty database: nothing runs until a definitions file is applied with `"+
			s.command("apply -f FILE")+"`; if a database was expected here, stop and check --data-dir", "code", CodeDatabaseCreated, "db", s.layout.DB)
	case filled:
		// As quiet a loss as a mistyped --data-dir, and likelier to be
		// one: the file was there, so data was expected in it.
		cfg.Logger.Warn("the database file held no QingLong database (it was empty): made a new, empty one in it; if it should hold your data "+
			"(a restore or a copy cut short, a full disk), stop now and restore it from a backup; otherwise apply a definitions file with `"+
			s.command("apply -f FILE")+"`", "code", CodeDatabaseCreated, "db", s.layout.DB)
	}
	// Before the API and the console take writes, the recovery and the
	// dispatcher write events dated by this clock, which would hide the
	// newest time the last server recorded, and before the scheduler's
	// first round and readiness: a clock behind the database is held from
	// the start, not after a write or a round has dated rows by it.
	// Once the database is there (a start that failed before leaves an
	// empty data directory it made, which it removes).
	if err := s.scriptsFolder.Ensure(); err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "create the scripts folder %s; give --scripts-dir a folder this user may create, or create it and let this user write it", cfg.ScriptsDir)
	}
	s.scriptsHidden = scriptsHiddenFrom(cfg.DataDir, cfg.ScriptsDir, cfg.RunAs)
	warnIfScriptsHidden(cfg.Logger, cfg.DataDir, cfg.ScriptsDir, s.scriptsHidden)
	s.clockHold = clockHold{wait: cfg.ClockWait, uptime: cfg.Uptime, nowMs: cfg.NowMs, log: cfg.Logger}
	s.clockHold.look(ctx, s.store, cfg.NowMs())
	switch {
	case cfg.MetricsAddr != "":
		if err := s.listenMetrics(); err != nil {
			return nil, err
		}
	case cfg.HTTPAddr != "":
		// Served on the API's listener, behind a read token.
		s.metrics = s.newMetrics()
	}
	// Bound before anything is recovered, admitted or run: a server that
	// cannot take its address must fail having done nothing (it admitted
	// and started a command, then stopped it lost, when it bound last).
	// /readyz answers 503 until the start is complete.
	if cfg.HTTPAddr != "" {
		if err := s.listen(); err != nil {
			return nil, err
		}
	} else {
		// No console takes a setup code: the file an earlier start left
		// (one killed before its stop removed it) names a code that no
		// longer works.
		s.removeSetupCode()
		// Off by default on a single node (nothing listens that was not
		// asked for), which a first-time user cannot tell from a console
		// that failed: the line says how to turn it on.
		cfg.Logger.Info("the web console and the API are off; serve them with --http-addr 127.0.0.1:8080 and sign in with an account from `"+
			s.command("users create NAME --owner")+"`", "code", CodeHTTPOff)
	}
	if err := s.openWatch(ctx); err != nil {
		return nil, err
	}
	if s.owner, err = executor.AcquireOwner(s.layout.Owners); err != nil {
		return nil, err
	}
	rec, err := executor.Recover(ctx, s.store, s.owner)
	if err != nil {
		return nil, err
	}
	if s.metrics != nil {
		s.metrics.AttemptsLost(rec.Lost)
	}
	s.runsFinished(rec.Finished)
	if s.metrics != nil {
		s.metrics.AttemptsRetried(rec.Retried)
	}
	if rec.Kept > 0 {
		cfg.Logger.Info("results the last server could not record before it stopped (its database refused them to the end) are now recorded, as their commands ended",
			"code", CodeResultsRecorded, "recorded", rec.Kept)
	}
	if rec.Lost > 0 {
		cfg.Logger.Warn("attempts of a server that stopped unexpectedly, or stopped unable to record or keep their results (a full disk), are now lost; those whose task retries a lost attempt run again after its backoff, the others were not re-run",
			"code", CodeAttemptsLost, "lost", rec.Lost, "retried", rec.Retried, "orphans_ended", rec.OrphansEnded, "orphans_left", rec.OrphansLeft)
	}
	if rec.OrphanErr != nil {
		cfg.Logger.Warn("a lost attempt's command may still be running; end it by hand (its process group id is the attempt's pid)", "code", CodeOrphanLeft, "error", rec.OrphanErr.Error())
	}
	// Before the scheduler's first round admits what the copy says was
	// missed.
	if err := s.sayRestored(ctx); err != nil {
		return nil, err
	}
	// Before the scheduler's first round starts a pull with the helper an
	// earlier release wrote.
	s.rescopeSubscriptions(ctx)
	// Retention's loop exists before the dispatcher, which wakes it as logs
	// grow (executor.Config.LogsGrown); it starts after the scheduler. It
	// runs with every setting off too, for the expired console sessions.
	if s.retain, err = retention.NewLoop(retention.LoopConfig{
		Store: heldRetention{Store: s.store.Retention(s.layout.Logs), s: s}, Policy: cfg.Retention.Policy, Cadence: cfg.Retention.Cadence,
		StopTimeout: cfg.StopTimeout, Options: cfg.Retention.Options, Logger: cfg.Logger, OnPass: s.retentionObserver(),
	}); err != nil {
		return nil, qlerror.Wrap(qlerror.Invalid, err, "retention")
	}
	if s.disp, err = s.newDispatcher(); err != nil {
		return nil, err
	}
	if err := s.disp.Start(ctx); err != nil {
		return nil, err
	}
	s.diag = schedule.Diagnostics{Log: cfg.Logger, Repeats: schedule.NewRepeats()}
	s.clock = schedule.ClockWatch{Log: cfg.Logger}
	s.gap = gapWatch{cadence: cfg.Cadence, log: cfg.Logger}
	if s.metrics != nil {
		s.diag.Metrics = s.metrics
	}
	if s.sched, err = loop.New(loop.Config{Name: "scheduler", Cadence: cfg.Cadence, StopTimeout: cfg.StopTimeout, OnError: s.diag.RoundFailed}, s.round); err != nil {
		return nil, qlerror.Wrap(qlerror.Invalid, err, "scheduler")
	}
	if err := s.sched.Start(ctx); err != nil {
		return nil, err
	}
	if err := s.startNotifications(ctx); err != nil {
		return nil, err
	}
	if s.retain != nil {
		if err := s.retain.Start(ctx); err != nil {
			return nil, err
		}
	}
	// Last: its first look wakes the loops for the start's own commits,
	// which would only slow the start down.
	if err := s.watcher.Start(ctx); err != nil {
		return nil, err
	}
	s.ready.Store(true)
	cfg.Logger.Info("serving", "code", CodeReady, "profile", cfg.Profile, "db", s.layout.DB, "page", cfg.PageSize, "cadence_ms", cfg.Cadence.Milliseconds(), "misfire_grace_ms", cfg.Grace.Milliseconds(), "concurrency", cfg.Concurrency,
		"retention", cfg.Retention.Policy.String(), "version", cfg.Version, "commit", cfg.Commit)
	return s, nil
}

// The diagnostic codes of the start: its recovery's results kept by the
// last stop now recorded, its two warnings (attempts a server that stopped
// unexpectedly left are now lost; a lost attempt's command could not be
// ended), and its last line, once it serves. The
// recovery's codes are the cluster's recovery.* family; serve.ready is the
// replica's own.
const (
	CodeResultsRecorded = "recovery.results_recorded"
	CodeAttemptsLost    = "recovery.attempts_lost"
	CodeOrphanLeft      = "recovery.orphan_left"
	CodeReady           = "serve.ready"
)

// CodeDatabaseCreated is the diagnostic code of the warning that the
// server created its database, new and empty.
const CodeDatabaseCreated = "serve.database_created"

// CodeMigrated is the diagnostic code of the line saying which migrations
// the server applied to an existing database as it started.
const CodeMigrated = "serve.migrated"

// CodeMigrationIndex is the diagnostic code of the line a server logs
// before a migration builds an index over every Run of a large history.
const CodeMigrationIndex = "serve.migration_index"

// CodeDataDirShared is the diagnostic code of the warning about a data
// directory open to its group or others.
const CodeDataDirShared = "data_dir_shared"

// CodeDBFilesNarrowed is the diagnostic code of the warning that the
// database's -wal or -shm file was wider than the database and narrowed.
const CodeDBFilesNarrowed = "db_files_narrowed"

// narrowedCompanions says which of the database's -wal and -shm files
// were narrowed, and why it matters.
func narrowedCompanions(files []string) string {
	return fmt.Sprintf("narrowed %s to the database file's permissions: an older build left them readable by more accounts than the database, and the WAL holds its recent writes", strings.Join(files, " and "))
}

// sayIfShared says once how far the data directory lets its group or
// others in. The files QingLong creates in it are owner-only, so a
// directory they may only list shows them names and sizes: information,
// not a warning (a newcomer's clone is 0755). One they may write lets
// them replace the database or put a secrets file there first: a warning.
func sayIfShared(log *slog.Logger, dir string) {
	switch mode, access := privatefile.DirOpenToOthers(dir); access {
	case privatefile.DirWritable:
		log.Warn("the data directory is writable by group or others: they can replace or delete the database, its logs and the secrets file; run chmod 700 on it",
			"code", CodeDataDirShared, "dir", dir, "mode", fmt.Sprintf("%04o", mode))
	case privatefile.DirListable:
		log.Info("group or others may list the data directory: its files are owner-only, so they see names and sizes, not contents; run chmod 700 on it to hide those too",
			"code", CodeDataDirShared, "dir", dir, "mode", fmt.Sprintf("%04o", mode))
	}
}

// edgeWALPages is the edge profile's bound of the -wal file, edgeWALBytes,
// in pages of the database at path (one it creates has edgePageBytes).
func edgeWALPages(path string) int {
	return max(edgeWALBytes/sqlitestore.PageBytesOf(path, edgePageBytes), sqlitestore.MinWALPages)
}

// openStore opens, migrates and checks the file with the connection
// settings of profile p, making a new database as profile makeAs's server
// does (its page size), saying each index a migration builds over the
// Runs to building, and returns the migrations it applied.
func openStore(ctx context.Context, path string, p, makeAs Profile, nowMs func() int64, watch integrityWatch, building func(sqlitestore.LongStep)) (*sqlitestore.Store, []string, error) {
	scfg := sqlitestore.Config{Path: path, NowMs: nowMs, LogDir: LayoutOfDB(path).Logs}
	if makeAs == Edge {
		scfg.PageBytes = edgePageBytes
	}
	if p == Edge {
		scfg.CacheKiB, scfg.ReadConns, scfg.WALPages = edgeCacheKiB, edgeReadConns, edgeWALPages(path)
	}
	st, err := sqlitestore.Open(ctx, scfg)
	if err != nil {
		return nil, nil, err
	}
	// Before anything writes to it: a corrupt file is served by nobody,
	// as a server on it would run commands it could not record.
	if err := watch.check(ctx, st, path); err != nil {
		st.Close() //nolint:errcheck // the integrity error is the one returned
		return nil, nil, err
	}
	if err := migrateUnlessServed(ctx, st, path); err != nil {
		st.Close() //nolint:errcheck // the migration error is the one returned
		return nil, nil, err
	}
	applied, err := st.MigrateSaying(ctx, building)
	if err != nil {
		st.Close() //nolint:errcheck // the migration error is the one returned
		return nil, nil, err
	}
	if err := st.Ready(ctx); err != nil {
		st.Close() //nolint:errcheck // the readiness error is the one returned
		return nil, nil, err
	}
	return st, applied, nil
}

// sayMigrationStep logs a migration step that reads every Run or attempt
// before it begins, and has readiness say migrating from then on: the
// minutes such steps take on a long history are not taken for a hung
// start by whoever watches /readyz or opens the console meanwhile.
func (s *Server) sayMigrationStep(b sqlitestore.LongStep) {
	s.migrating.Store(true)
	step := []any{"index", b.Index}
	if b.Column != "" {
		step = []any{"column", b.Column}
	}
	s.cfg.Logger.Info(longStepText(b), append([]any{"code", CodeMigrationIndex, "db", s.layout.DB, "migration", b.Migration, "runs", b.Runs}, step...)...)
}

// longStepText says that a migration reads every Run or attempt now (an
// index it builds, a column it adds), so that a start or a command that
// pauses for it is not taken for hung.
func longStepText(b sqlitestore.LongStep) string {
	const after = "stopping now undoes the whole upgrade, which the next start begins again"
	if b.Column != "" {
		return fmt.Sprintf("adding column %s beside %d Runs (migration %s): SQLite checks every row of the table, seconds to minutes a million Runs depending on the disk; "+after, b.Column, b.Runs, b.Migration)
	}
	return fmt.Sprintf("building index %s over %d Runs (migration %s): about 6 s a million Runs on a fast disk, minutes on a slow one; "+after, b.Index, b.Runs, b.Migration)
}

// migrateUnlessServed refuses to migrate the file at path while a server
// serves its data directory. A file that still needs this build's
// migrations is served, if at all, by an older build, which checked the
// schema only when it started: migrating under it would leave it running
// on a schema it does not know, and a build older than the directory's
// server lock would not even keep this build's server from starting beside
// it. Every server holds an executor owner lock while it serves (the
// server migrating here takes its own only after), so a live one is that
// older server.
func migrateUnlessServed(ctx context.Context, st *sqlitestore.Store, path string) error {
	pending, err := st.Pending(ctx)
	if err != nil || len(pending) == 0 {
		return err
	}
	serving, err := executor.Serving(LayoutOfDB(path).Owners)
	if err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "look for a server serving %s before migrating it", path)
	}
	if !serving {
		return nil
	}
	return qlerror.New(qlerror.FailedPrecondition,
		"the database %s needs this build's migrations %s, but a server of an older build is serving it: stop that server first (nothing was changed), then start this build's server, which migrates the file (docs/operations.md, \"Upgrading\")",
		path, strings.Join(pending, ", "))
}

func (s *Server) newDispatcher() (*executor.Dispatcher, error) {
	cfg := executor.Config{
		Concurrency:  s.cfg.Concurrency,
		LogDir:       s.layout.Logs,
		LogCapBytes:  s.cfg.LogCapBytes,
		Secrets:      s.secrets(),
		Owner:        s.owner,
		BaseEnv:      append(slices.Clip(s.cfg.BaseEnv), scripts.EnvVar+"="+s.cfg.ScriptsDir),
		RunAs:        s.cfg.RunAs,
		PollInterval: s.cfg.Cadence,
		StopTimeout:  s.cfg.StopTimeout,
		OnError:      s.quietWarn("executor", CodeExecutorFailed),
		NowMs:        s.cfg.NowMs,
		OnFinish:     s.finished,
		Admit:        writes{s}.Admit,
	}
	if logCap := s.cfg.Retention.Policy.LogBytes; s.retain != nil && logCap != 0 {
		// A pass as soon as the logs grew by a quarter of the cap, not
		// only at the next cadence: a small disk fills in less than a
		// minute (docs/operations.md, "Retention").
		cfg.LogsGrown, cfg.LogsGrownEvery = s.retain.Wake, logCap/logsGrownShare
	}
	return executor.New(s.store, cfg)
}

// logsGrownShare: the logs growing by cap/logsGrownShare wake retention,
// so they pass the cap by about that much between its passes, and a pass
// runs at most once per that much output.
const logsGrownShare = 4

// startNotifications delivers the outbox on the scheduler's cadence, and
// when a retry's backoff ends; the commit watch wakes it for new rows (a
// Run that ended, a retry by hand). The channels' secrets come from the
// secrets file, read at each delivery so an edit applies without a
// restart.
func (s *Server) startNotifications(ctx context.Context) error {
	if err := s.store.NotificationsRelease(ctx); err != nil {
		return err
	}
	secrets := s.secrets()
	var observe func(string)
	if s.metrics != nil {
		observe = s.metrics.NotificationDelivery
	}
	d := notify.NewDeliverer(notify.DeliveryConfig{
		Outbox:      heldOutbox{Outbox: s.store, s: s},
		Secrets:     secrets.Resolve,
		MaxAttempts: s.cfg.NotifyMaxAttempts,
		BaseBackoff: s.cfg.NotifyBackoff,
		ConsoleURL:  s.cfg.ConsoleURL,
		Version:     cli.Version,
		Log:         s.cfg.Logger,
		Observe:     observe,
		// Called from a round, which runs only once s.notify is started.
		WakeWithin: func(wait time.Duration) { s.notify.WakeWithin(wait) },
	})
	var err error
	s.notify, err = loop.New(loop.Config{Name: "notifications", Cadence: s.cfg.Cadence, StopTimeout: s.cfg.StopTimeout,
		OnError: s.quietWarn("notifications", CodeNotificationsFailed)}, d.Round)
	if err != nil {
		return qlerror.Wrap(qlerror.Invalid, err, "notifications")
	}
	return s.notify.Start(ctx)
}

// The diagnostic codes of the executor's and the notifications' warnings
// (a round that failed; it is retried at the next) and of the line each
// ended attempt logs. serve.notifications_failed is the replica's own.
const (
	CodeExecutorFailed      = "serve.executor_failed"
	CodeNotificationsFailed = "serve.notifications_failed"
	CodeRunFinished         = "run.finished"
	CodeRunRetryWait        = "run.retry_wait"
)

// finished logs an ended attempt and counts its Run when the store
// reported the result finished it; a result that did not finish it gave
// the Run a next attempt (its retry policy), which is counted and said.
// The line points at `runs logs` only for a command that had a log (the
// result names it): one that ran without one has no output to read. A
// Run that failed, timed out or was lost is a warning (run.FinishedLevel).
func (s *Server) finished(id run.Identity, a run.Attempt, state run.State) {
	s.runFinished(state)
	args := run.FinishedAttrs(id, a)
	if state == "" {
		if s.metrics != nil {
			s.metrics.AttemptsRetried(1)
		}
		s.cfg.Logger.Info("attempt ended; its run waits to retry (the run.retry_wait event of `"+s.command("runs show "+a.RunID)+"` says when)", append([]any{"code", CodeRunRetryWait}, args...)...)
		return
	}
	msg := "run finished; read its output with `" + s.command("runs logs "+a.RunID) + "`"
	if a.LogPath == "" {
		msg = "run finished; its command left no log"
	}
	s.cfg.Logger.Log(context.Background(), run.FinishedLevel(state), msg, append([]any{"code", CodeRunFinished}, args...)...)
}

// command is the command line of args for this server's database, as a
// line it logs tells someone to run it (dataDirFlag).
func (s *Server) command(args string) string {
	return s.cfg.Binary + " " + args + s.dataDirFlag()
}

// secrets is the data directory's secrets file, whose missing secrets the
// commands and the notifications that need them are refused with the
// command that sets one in it.
func (s *Server) secrets() process.Secrets {
	return process.Secrets{Path: s.layout.Secrets, SetBy: func(name string) string {
		return s.command("secrets set " + shellquote.Quote(name))
	}}
}

// dataDirFlag is what a command given to someone to run adds to reach
// this server's database: --data-dir and the directory, quoted for the
// shell, unless it is the working directory, where the command finds it
// without. Without it, a server given --data-dir would send them to a
// database that is not there.
func (s *Server) dataDirFlag() string {
	if wd, err := os.Getwd(); err == nil && wd == s.cfg.DataDir {
		return ""
	}
	return " --data-dir " + shellquote.Quote(s.cfg.DataDir)
}

// round is one scheduler round; after it, the dispatcher is woken for
// whatever it admitted — and only then, since the admissions are
// committed. While the database path names another file it admits
// nothing (see checkDatabasePath).
func (s *Server) round(ctx context.Context) (more bool, err error) {
	s.gap.began(s.cfg.NowMs(), s.cfg.Uptime())
	s.unlessMoved(func() { more, err = s.admit(ctx) })
	s.gap.finished(s.cfg.NowMs(), s.cfg.Uptime())
	return more, err
}

// admit is the scheduler round's work.
func (s *Server) admit(ctx context.Context) (bool, error) {
	now := s.cfg.NowMs()
	if !s.clockHold.admits(ctx, s.store, now) {
		if s.cfg.OnRound != nil {
			s.cfg.OnRound(schedule.Summary{})
		}
		return false, nil
	}
	s.clock.Saw(now)
	s.clock.Check(ctx, s.store)
	sum, err := schedule.Round(ctx, s.store, schedule.RoundConfig{
		PageSize: s.cfg.PageSize,
		GraceMs:  s.cfg.Grace.Milliseconds(),
		// One writer connection: commits queue on it anyway, so more
		// parallelism would only add goroutines.
		Parallel: 1,
		NewIDs:   ids.Fill,
	})
	if err != nil {
		return false, err
	}
	if len(sum.Admitted) > 0 {
		s.disp.Wake()
	}
	s.diag.Round(ctx, sum)
	if s.cfg.OnRound != nil {
		s.cfg.OnRound(sum)
	}
	s.planWake(sum)
	more := sum.StartNextAtOnce(s.cfg.PageSize)
	s.gap.decided(sum, more)
	return more, nil
}

// Stop stops the server in reverse start order within the stop timeout.
// Idempotent.
func (s *Server) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, s.cfg.StopTimeout)
		defer cancel()
		// Further stop signals are listened for before the stop is said:
		// one sent as soon as the line shows would otherwise reach only the
		// first signal's listener, and be answered by nothing.
		tornDown := make(chan struct{})
		s.sayStopPending(time.Now(), tornDown)
		s.cfg.Logger.Info("stopping: admission closed; draining what runs", "code", CodeStopping, "stop_timeout_ms", s.cfg.StopTimeout.Milliseconds())
		s.stopErr = s.teardown(ctx, true)
		close(tornDown)
		if s.stopErr != nil {
			s.cfg.Logger.Warn("stopped, not cleanly", "code", CodeStopped, "error", s.stopErr.Error())
			return
		}
		s.cfg.Logger.Info("stopped", "code", CodeStopped)
	})
	return s.stopErr
}

// The diagnostic codes of a stop's first and last lines, as the cluster
// replica logs its own.
const (
	CodeStopping = "serve.stopping"
	CodeStopped  = "serve.stopped"
	// CodeStoppedWhileStarting: asked to stop before the start was
	// complete; what had started was undone.
	CodeStoppedWhileStarting = "serve.stopped_while_starting"
)

// bind binds the HTTP and metrics addresses, each when given, for
// listen and listenMetrics to serve.
func (s *Server) bind() (err error) {
	if s.cfg.HTTPAddr != "" {
		if s.httpLn, err = httpserve.Bind(s.cfg.HTTPAddr, "--http-addr"); err != nil {
			return err
		}
	}
	if s.cfg.MetricsAddr != "" {
		s.metricsLn, err = httpserve.Bind(s.cfg.MetricsAddr, "--metrics-addr")
	}
	return err
}

// undoStart undoes a start that failed. A data directory this start
// created is removed again when no database was made in it, so a first
// start that failed (an address in use) leaves nothing behind: not even
// the directory, which a later start with another address would otherwise
// find as if a server had used it. Its lock file is unlinked while the
// lock is still held: a server starting on it meanwhile fails to lock it
// without waiting, and one starting after makes a new file. The empty
// database file the start's database lock made goes too, before the store
// ever opened it (after, its pages may be in the -wal file alone).
func (s *Server) undoStart(ctx context.Context, created bool) {
	if s.store == nil && s.dbLock != nil {
		s.dbLock.discardCreated()
	}
	_, dbErr := os.Stat(s.layout.DB)
	discard := created && errors.Is(dbErr, fs.ErrNotExist) && s.lock != nil
	if discard {
		_ = os.Remove(s.layout.Lock)
	}
	_ = s.teardown(ctx, false) // the startup error is the one to report
	if discard {
		_ = os.Remove(s.cfg.DataDir) // fails, leaving it, unless it is empty
	}
}

// teardown stops what started, in reverse order; clean (a stop, not an
// undone start) leaves the clean-stop mark once the store closed without
// error, before the locks are released.
func (s *Server) teardown(ctx context.Context, clean bool) error {
	s.stopping.Store(true)
	s.ready.Store(false)
	var errs []error
	if s.watcher != nil {
		errs = append(errs, s.watcher.Stop(ctx))
	}
	if s.notify != nil {
		errs = append(errs, s.notify.Stop(ctx))
	}
	if s.retain != nil {
		errs = append(errs, s.retain.Stop(ctx))
	}
	if s.sched != nil {
		errs = append(errs, s.sched.Stop(ctx))
	}
	if s.disp != nil {
		errs = append(errs, s.disp.Stop(ctx))
	}
	for _, srv := range []*httpserve.Server{s.http, s.metricsHTTP} {
		if srv != nil {
			errs = append(errs, srv.Shutdown(ctx))
		}
	}
	for _, ln := range []net.Listener{s.httpLn, s.metricsLn} {
		if ln != nil {
			errs = append(errs, ln.Close())
		}
	}
	// With the console no longer served, the code is no use: its file
	// goes now, whatever cut the stop short, and before the data
	// directory's lock is released, so it is never the file of a server
	// started after this one.
	if s.setup != nil {
		s.setup.Close()
	}
	if s.owner != nil {
		errs = append(errs, s.owner.Release())
	}
	if s.watch != nil {
		errs = append(errs, s.watch.Close())
	}
	if s.store != nil {
		closed := s.store.Close()
		errs = append(errs, closed)
		if clean && closed == nil {
			s.markCleanStop()
		}
	}
	// After the store: closing the database file's lock descriptor
	// earlier would drop SQLite's own locks on it (dbLock).
	if s.dbLock != nil {
		errs = append(errs, s.dbLock.release())
	}
	// Last: a server started after this one must find the file closed.
	if s.lock != nil {
		errs = append(errs, s.lock.release())
	}
	return errors.Join(errs...)
}
