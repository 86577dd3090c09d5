package server

import (
	"context"
	"os"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/authlimit"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
)

// listen hands the API and the console to the HTTP listener, which has
// answered with the starting answers since before the database was opened
// (serveWhileStarting, which logged its address), and says where the
// console is and how to sign in to it.
func (s *Server) listen() error {
	secure := s.httpTLS
	proxies, err := httpapi.ParseTrustedProxies(s.cfg.TrustedProxies)
	if err != nil {
		return err
	}
	cfg := httpapi.Config{
		// The refusals name this binary's commands (ql-edge's on ql-edge).
		Binary:         s.cfg.Binary,
		TrustedProxies: proxies,
		Runs:           servedRuns{Reader: s.store, concurrency: s.cfg.Concurrency}, LastRuns: s.store, Triggers: s.store, Detail: s.store, Tokens: s.store, Uses: apitoken.NewUses(heldTouches{Authenticator: s.store, s: s}), Pauser: s.store, ProjectPauser: s.store, ProjectPauses: s.store, Cancel: s.cancelRun,
		ProjectDeleter: s.store.ProjectDeleter(s.layout.Logs, s.layout.Secrets),
		Notifications:  s.store, NotificationProjects: s.store,
		// A test message is sent as the deliveries send: the same
		// secrets file and User-Agent.
		TryChannel:   notify.NewDeliverer(notify.DeliveryConfig{Secrets: s.secrets().Resolve, Version: cli.Version, ConsoleURL: s.cfg.ConsoleURL}).Try,
		ChannelTests: s.store,
		Audit:        s.store,
		AllowedHosts: httpapi.DefaultAllowedHosts(s.cfg.HTTPAddr, s.cfg.AllowedHosts),
		Ready:        s.readiness, Writes: writes{s}, Log: s.cfg.Logger, RequestTimeout: s.cfg.RequestTimeout,
		Definitions: &catalog.Service{Store: s.store, Executor: task.LocalProcess, NowMs: s.cfg.NowMs},
		Export:      s.store,
		// This server runs the commands itself, as its own user, with
		// its own secrets file: an apply's answer can note the secrets
		// that file lacks, or that it cannot be used at all.
		MissingSecrets: process.Secrets{Path: s.layout.Secrets}.Missing,
		Secrets:        &process.Secrets{Path: s.layout.Secrets},
		SecretsRecord:  s.store,
		// The logs as every reader on this data directory reads them.
		ReadLog: (&Backend{Layout: s.layout}).ReadLog,
	}
	if s.metrics != nil && s.metricsHTTP == nil {
		cfg.Metrics = s.metrics.Handler()
	}
	// Enabling and disabling publish a revision through the catalog, as
	// `ql apply` does.
	cfg.Enabler = catalog.Service{Store: s.store, Executor: task.LocalProcess, NowMs: s.cfg.NowMs}
	// Run-now and backfill are served where the store admits them.
	if m, ok := any(s.store).(schedule.Manual); ok {
		cfg.Manual = schedule.ObservedManual{Manual: m, Finished: s.runsFinished}
	}
	// The one maker of backup archives the API and the console share, so
	// that the two make one at a time between them.
	s.backups = &archives{layout: s.layout, nowMs: s.cfg.NowMs}
	cfg.Backup, cfg.BackupRecord = s.backups, s.store
	// Dependencies install on this machine, which runs the commands, as
	// Runs of the dependencies project's tasks.
	dependencies := &deps.Service{Host: deps.Host{ScriptsDir: s.scriptsFolder.Dir, Root: os.Geteuid() == 0, RunAs: s.cfg.RunAs}, Store: s.store, Runs: s.store,
		Catalog: *cfg.Definitions, Manual: cfg.Manual, Pauser: s.store}
	cfg.Dependencies, cfg.DependencyKeys = dependencies, s.store
	setup, setupFailed := s.drawSetupCode()
	cfg.Console = console.New(console.Config{Runs: cfg.Runs, LastRuns: cfg.LastRuns, Triggers: s.store, Detail: cfg.Detail, Tokens: cfg.Tokens, Uses: cfg.Uses,
		Users: s.store, Sessions: s.store, FirstOwner: s.store, Setup: setup, Passwords: s.store, TwoStep: s.store, TokenAdmin: s.store, Backlog: s.store.Backlog,
		Pauser: cfg.Pauser, ProjectPauser: cfg.ProjectPauser, ProjectPauses: cfg.ProjectPauses, ProjectDeleter: cfg.ProjectDeleter, Cancel: cfg.Cancel, Manual: cfg.Manual, Enabler: cfg.Enabler, Definitions: cfg.Definitions, Export: cfg.Export, Notifications: cfg.Notifications, NotificationProjects: cfg.NotificationProjects, Audit: cfg.Audit, TryChannel: cfg.TryChannel, ChannelTests: cfg.ChannelTests,
		MissingSecrets: cfg.MissingSecrets, Secrets: &process.Secrets{Path: s.layout.Secrets}, SecretsRecord: cfg.SecretsRecord, Scripts: s.scriptsFolder, ScriptsRecord: s.store, ScriptsHiddenFrom: s.scriptsHidden, LocalConcurrency: s.cfg.Concurrency, Writes: cfg.Writes, Secure: secure || console.PublicTLS(s.cfg.ConsoleURL), PublicURL: s.cfg.ConsoleURL, Log: s.cfg.Logger, Binary: s.cfg.Binary, DatabaseFlags: s.dataDirFlag(),
		RequestTimeout: s.cfg.RequestTimeout, ReadLog: cfg.ReadLog, MisfireGrace: s.cfg.Grace, NowMs: s.cfg.NowMs,
		Backup: cfg.Backup, BackupRecord: cfg.BackupRecord, Dependencies: dependencies})
	api := httpapi.NewHandler(cfg)
	// Served since before the database was opened (serveWhileStarting),
	// with the starting answers until now.
	srv := s.http
	s.api.Store(api)
	s.httpSwap.set(api)
	console := httpserve.ConsoleURL(srv.Addr(), s.cfg.HTTPAddr, secure)
	if note := httpapi.WildcardNote(s.cfg.HTTPAddr, s.cfg.AllowedHosts); note != "" {
		s.cfg.Logger.Info(note, "code", CodeHTTPEveryInterface, "addr", srv.Addr())
	}
	if note := httpapi.PlainHTTPNote(s.cfg.HTTPAddr, s.httpTLS); note != "" {
		s.cfg.Logger.Warn(note, "code", httpapi.CodePlainHTTPExposed, "addr", srv.Addr())
	}
	s.noteNoAccounts(console)
	s.logSetupCode(setup, setupFailed, console)
	return nil
}

// noteNoAccounts says, when nothing can sign in to the console — no
// account enabled, no API token active — how to create an account: a
// first-time user who opens the console otherwise meets a sign-in form
// with nothing to sign in with. An active token signs in too, so a server
// that has one says nothing. A database that cannot be read here says
// nothing; the start reads it again and fails on its own.
func (s *Server) noteNoAccounts(console string) {
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	users, err := s.store.UserList(ctx)
	if err != nil {
		return
	}
	for _, u := range users {
		if u.DisabledAtMs == nil {
			return
		}
	}
	tokens, err := s.store.TokenList(ctx)
	if err != nil {
		return
	}
	for _, t := range tokens {
		if t.StateAt(s.cfg.NowMs()) == apitoken.StateActive {
			return
		}
	}
	s.cfg.Logger.Info("no console account can sign in yet: create one with `"+s.command("users create NAME --owner")+"`, then sign in at "+console+
		" (or with an API token from `"+s.command("tokens create NAME --scope operate")+"`)", "code", CodeNoAccounts)
}

// The diagnostic codes of the listeners' lines, which give their addresses:
// the replica's own, so one rule matches both profiles.
const (
	CodeHTTPListening    = "serve.http_listening"
	CodeMetricsListening = "serve.metrics_listening"
	// CodeHTTPEveryInterface says the API listens on every interface,
	// and which Host names it answers to there.
	CodeHTTPEveryInterface = "serve.http_every_interface"
	// CodeNoAccounts says nothing can sign in to the console (no account
	// enabled, no API token active), and how to create an account.
	CodeNoAccounts = "serve.no_accounts"
	// CodeHTTPOff says a single-node server serves no console or API, and
	// the flag that turns them on.
	CodeHTTPOff = "serve.http_off"
)

// Addr is the HTTP address, or "" when HTTP is off.
func (s *Server) Addr() string {
	if s.http == nil {
		return ""
	}
	return s.http.Addr()
}

// APIStats are the API's authentication counters (zero when HTTP is off).
func (s *Server) APIStats() httpapi.Stats {
	api := s.api.Load()
	if api == nil {
		return httpapi.Stats{}
	}
	return api.Stats()
}

// readiness is ready once started, until stopping, while the database
// path names the file the server opened and that file still answers, and
// while the clock does not read behind the database (clockhold.go).
func (s *Server) readiness() (bool, string) {
	if s.checking.Load() {
		return false, "integrity_check"
	}
	if s.migrating.Load() {
		return false, "migrating"
	}
	if !s.ready.Load() {
		return false, "not_serving"
	}
	if s.corrupt.Load() {
		return false, metrics.StateDatabaseCorrupt
	}
	if s.moved.Load() {
		return false, metrics.StateDatabaseMoved
	}
	if s.clockHold.holding() {
		return false, metrics.StateClockBehindDatabase
	}
	// Bounded as the metrics scrape's check is: a probe that hangs on
	// the database is a failed probe, not a held connection.
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	if s.store.Ping(ctx) != nil {
		return false, "database_unavailable"
	}
	return true, ""
}

// newMetrics is the server's metrics registry.
func (s *Server) newMetrics() *metrics.Metrics {
	m := metrics.New(metrics.Config{
		Profile:   string(s.cfg.Profile),
		Version:   cli.Version,
		Commit:    cli.Commit(),
		Monitor:   s.store.Monitor,
		Readiness: s.readinessState,
		AuthFailures: func() map[string]authlimit.Failures {
			st := s.APIStats()
			return map[string]authlimit.Failures{metrics.SurfaceAPI: st.API, metrics.SurfaceConsole: st.Console}
		},
		PerTrigger:      s.cfg.MetricsPerTrigger,
		TriggerActivity: s.store.TriggerActivity,
		Logger:          s.cfg.Logger,
	})
	m.AddStorage(s.storage())
	return m
}

// listenMetrics serves Prometheus metrics on their own listener (served
// since before the database was opened, with the starting answer until
// now), before recovery and the scheduler start so the first rounds are
// counted.
func (s *Server) listenMetrics() error {
	s.metrics = s.newMetrics()
	s.metricsSwap.set(metrics.ListenerHandler(s.metrics))
	return nil
}

// MetricsAddr is the metrics address, or "" when metrics are off.
func (s *Server) MetricsAddr() string {
	if s.metricsHTTP == nil {
		return ""
	}
	return s.metricsHTTP.Addr()
}

// readinessState is the server's readiness state for monitoring: the same
// judgement as /readyz, with the reason.
func (s *Server) readinessState() string {
	switch {
	case s.stopping.Load():
		return metrics.StateDraining
	case !s.ready.Load():
		return metrics.StateStarting
	case s.corrupt.Load():
		return metrics.StateDatabaseCorrupt
	case s.moved.Load():
		return metrics.StateDatabaseMoved
	case s.clockHold.holding():
		return metrics.StateClockBehindDatabase
	}
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	if s.store.Ping(ctx) != nil {
		return metrics.StateDatabaseUnavailable
	}
	return metrics.StateReady
}

// pingTimeout bounds the database check of /readyz and of a metrics
// scrape.
const pingTimeout = 2 * time.Second
