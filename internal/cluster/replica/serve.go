package replica

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/workeringress"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/loop"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
)

// Diagnostic codes of the composition root.
const (
	CodeListening = "serve.http_listening"
	// CodeEveryInterface says the API listens on every interface, and
	// which Host names it answers to there.
	CodeEveryInterface   = "serve.http_every_interface"
	CodeActivating       = "serve.activating"
	CodeDatabaseReady    = "serve.database_ready"
	CodeReady            = "serve.ready"
	CodeNotReady         = "serve.database_not_ready"
	CodeActivationFailed = "serve.activation_failed"
	CodeActivationFatal  = "serve.activation_fatal"
	CodeUnavailable      = "serve.database_unavailable"
	CodeDeactivated      = "serve.deactivated"
	CodeAdmissionClosed  = "serve.admission_closed"
	CodeStopped          = "serve.stopped"
	// CodeDatabaseTLSUnverified: the database is on another host and its
	// certificate is not verified.
	CodeDatabaseTLSUnverified = "serve.database_tls_unverified"
	// CodeDatabasePassfileExposed: the password comes from a password
	// file group or others may read.
	CodeDatabasePassfileExposed = "serve.database_passfile_exposed"
	// CodeDatabaseAnyHost: the URL lists several servers and keeps
	// whichever answers, not the writable one.
	CodeDatabaseAnyHost = "serve.database_any_host"
)

// DatabaseWarnings are the texts of pgstore.ConnWarnings, for the
// commands that print them (cli.Options.DatabaseWarnings).
func DatabaseWarnings(dsn string) []string {
	var out []string
	for _, w := range pgstore.ConnWarnings(dsn) {
		out = append(out, w.Text)
	}
	return out
}

// connWarningCodes are the log codes of pgstore.ConnWarnings' kinds.
var connWarningCodes = map[pgstore.ConnWarningKind]string{
	pgstore.WarnTLSUnverified:   CodeDatabaseTLSUnverified,
	pgstore.WarnPassfileExposed: CodeDatabasePassfileExposed,
	pgstore.WarnAnyHost:         CodeDatabaseAnyHost,
}

// Serve is the cli.ServeFunc of the cluster profile. It returns nil after a
// clean drain on SIGTERM/SIGINT (ctx ending). A start PostgreSQL refuses
// for the replica's role (its login, a privilege) is the refusal of the
// replica's own credential, and exits as one (pgstore.ForCommand).
func Serve(ctx context.Context, cmd *cobra.Command, f *cli.ServeFlags) error {
	if err := rejectGivenSingleNodeFlags(cmd.Flags()); err != nil {
		return err
	}
	s, err := settingsFrom(f)
	if err != nil {
		return err
	}
	log := f.Logger.With(slog.String("replica", s.Coordinator.Owner))
	// A log line in the replica's format, not a bare one on stderr: the
	// log shipper parses every line.
	for _, w := range pgstore.ConnWarnings(f.DatabaseURL) {
		log.Warn(w.Text, slog.String("code", connWarningCodes[w.Kind]))
	}
	return pgstore.ForCommand(serveReplica(ctx, s, log))
}

// replica is what a started replica holds, for the ordered stop.
type replica struct {
	s       settings
	log     *slog.Logger
	http    *httpserve.Server
	ingress *workeringress.Handler
	// api and ingressAuth are the handlers whose authentication counters
	// the metrics read; scrapes may come before they are set.
	api         atomic.Pointer[httpapi.Handler]
	ingressAuth atomic.Pointer[workeringress.Handler]
	workerHTTP  *httpserve.Server
	adm         *admission
	retain      *loop.Loop
	maint       *maintenance
	beat        *heartbeat
	setup       *setupCode
	// metrics and metricsHTTP exist only with a metrics address.
	metrics     *metrics.Metrics
	metricsHTTP *httpserve.Server
	// server is the database server the last activation reached, nil
	// before the first (dbserver.go).
	server *pgstore.Server
}

func serveReplica(ctx context.Context, s settings, log *slog.Logger) error {
	r := &replica{s: s, log: log, adm: &admission{}, beat: newHeartbeat(), setup: newSetupCode(s.SetupCodeDir, log)}
	// The stop is bounded from the signal, whatever phase it lands in
	// (a lost activation being stopped, a backoff, an activation step).
	signalled := make(chan time.Time, 1)
	stopWatch := context.AfterFunc(ctx, func() { signalled <- time.Now() })
	defer stopWatch()
	var err error
	if s.MetricsAddr != "" {
		err = r.listenMetrics()
	} else {
		// Served on the API's listener, behind a read token.
		r.metrics = r.newMetrics()
	}
	if err == nil {
		err = r.listen()
	}
	if err == nil {
		err = r.listenWorkers()
	}
	if err == nil {
		err = r.startRetention(ctx)
	}
	if err == nil {
		err = r.supervise(ctx)
	}
	if err != nil && ctx.Err() == nil {
		// Startup failed for good: release what started; the startup
		// error is the one worth reporting.
		_ = r.stop(time.Now().Add(s.Coordinator.StopTimeout))
		return err
	}
	return r.stop((<-signalled).Add(s.Coordinator.StopTimeout))
}

// listen binds HTTP before any database work, so /livez answers and
// /readyz says "starting" while the first activation is retried.
func (r *replica) listen() error {
	live := liveReaders{adm: r.adm}
	var err error
	cfg := httpapi.Config{
		Runs: live, LastRuns: live, Triggers: live, Detail: live, Tokens: live, Uses: apitoken.NewUses(live), Pauser: live, ProjectPauser: live, ProjectPauses: live, Cancel: r.cancelRun(live), AllowedHosts: r.s.AllowedHosts, TrustedProxies: r.s.TrustedProxies,
		Notifications: live, NotificationProjects: live, Audit: live, ReadLog: live.ReadAttemptLogUpTo,
		// A test message is sent as this replica's deliveries send.
		TryChannel: notify.NewDeliverer(notify.DeliveryConfig{Secrets: notifySecrets(r.s.Notify.Secrets), Version: cli.Version, ConsoleURL: r.s.Notify.ConsoleURL, RefuseLinkLocal: true, RefuseLoopback: !r.s.Notify.Loopback}).Try,
		// Its record is appended by the runtime role, as a retry's is.
		ChannelTests: live,
		// The runtime role reads the catalog: a replica exports though it
		// cannot publish.
		Export: live,
		// It answers an apply's dry run with what the role reads, with
		// the clock `ql apply --dry-run` reads it with; a real apply
		// stays refused (no Definitions: the admin role publishes).
		DryRuns: &httpapi.DryRuns{Reader: live, Service: catalog.Service{Executor: task.RemoteWorker, NowMs: func() int64 { return time.Now().UnixMilli() }}},
		Ready:   r.adm.ready, Log: r.log, Observe: r.observe,
	}
	if r.metricsHTTP == nil {
		cfg.Metrics = r.metrics.Handler()
	}
	// Run-now and backfill are served where the store admits them.
	if _, ok := any((*pgstore.Runtime)(nil)).(schedule.Manual); ok {
		cfg.Manual = schedule.ObservedManual{Manual: liveManual{live}, Finished: r.runsFinished}
	}
	cfg.Console = console.New(console.Config{Runs: cfg.Runs, LastRuns: cfg.LastRuns, Triggers: live, Detail: cfg.Detail, Tokens: cfg.Tokens, Uses: cfg.Uses,
		Pauser: cfg.Pauser, ProjectPauser: cfg.ProjectPauser, ProjectPauses: cfg.ProjectPauses, Users: live, Sessions: live, FirstOwner: live, Setup: r.setup.holder, Passwords: live, TwoStep: live, Backlog: live.Backlog, Workers: live.Workers, Replicas: live.Replicas, Cancel: cfg.Cancel, Manual: cfg.Manual, Notifications: cfg.Notifications,
		NotificationProjects: cfg.NotificationProjects, Audit: cfg.Audit, Export: cfg.Export, TryChannel: cfg.TryChannel, ChannelTests: cfg.ChannelTests, Secure: r.s.HTTPTLS != nil || console.PublicTLS(r.s.Notify.ConsoleURL), PublicURL: r.s.Notify.ConsoleURL, Log: r.log, ReadLog: cfg.ReadLog, AdminCredentials: true,
		MisfireGrace: r.s.Coordinator.WithDefaults().Grace})
	api := httpapi.NewHandler(cfg)
	r.api.Store(api)
	r.http, err = httpserve.ListenWith(r.s.HTTPAddr, api, httpserve.Options{TLS: r.s.HTTPTLS, ErrorLog: httpapi.ConnectionErrorLog(r.log)})
	if err != nil {
		return err
	}
	r.log.Info("HTTP listening; not ready until startup completes", slog.String("code", CodeListening), slog.String("addr", r.http.Addr()))
	if note := httpapi.WildcardNote(r.s.HTTPAddr, r.s.AllowedHosts); note != "" {
		r.log.Info(note, slog.String("code", CodeEveryInterface), slog.String("addr", r.http.Addr()))
	}
	if note := httpapi.PlainHTTPNote(r.s.HTTPAddr, r.s.HTTPTLS != nil); note != "" {
		r.log.Warn(note, slog.String("code", httpapi.CodePlainHTTPExposed), slog.String("addr", r.http.Addr()))
	}
	warnCertificateOutsideValidity(r.log, "API", "--tls-cert", r.s.HTTPTLS, time.Now())
	return nil
}

// observe trips the live activation's latch when an API request finds the
// database gone; the supervisor then replaces that activation.
func (r *replica) observe(err error) {
	if act := r.adm.current(); act != nil && act.latch.Observe(err) {
		r.log.Error("database connection lost; this replica stops scheduling until a fresh activation succeeds", slog.String("code", CodeUnavailable))
	}
}

// stop closes admission, drains the scheduler, shuts HTTP down and closes
// the pool, all by deadline. It returns the scheduler's drain-timeout
// error, if any.
func (r *replica) stop(deadline time.Time) error {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	opened := r.adm.close()
	if r.ingress != nil {
		r.ingress.Stop()
	}
	if opened {
		r.log.Info("admission closed; draining", slog.String("code", CodeAdmissionClosed))
	} else {
		// A startup that failed, or a stop before the first activation:
		// nothing was admitted, so nothing drains.
		r.log.Info("stopping before admission opened: releasing what started", slog.String("code", CodeAdmissionClosed))
	}
	// The scheduler stops first: until its context ends, its loop may
	// take another page, and admission is closed already. Retention's
	// stop (its loop, then its pool) would hold that window open.
	var errs []error
	act := r.adm.current()
	if act != nil {
		errs = append(errs, act.coord.Stop(ctx))
	}
	errs = append(errs, r.stopRetention(ctx))
	for _, srv := range []*httpserve.Server{r.http, r.workerHTTP, r.metricsHTTP} {
		if srv != nil {
			errs = append(errs, srv.Shutdown(ctx))
		}
	}
	// With the console no longer served the setup code is no use: its
	// file goes now, whatever cut the stop short.
	r.setup.holder.Close()
	if act != nil {
		// release, with the heartbeat marked stopped between the loops'
		// end (no beat can follow the mark) and the pool's close.
		errs = append(errs, act.loops.stop(ctx))
		r.heartbeatStopped(ctx, act)
		errs = append(errs, act.use.close(ctx), closeWithin(ctx, act.rt.Close))
	}
	err := errors.Join(errs...)
	if err != nil {
		r.log.Error("replica stopped with errors", slog.String("code", CodeStopped), slog.String("error", err.Error()))
		return err
	}
	r.log.Info("replica stopped", slog.String("code", CodeStopped))
	return nil
}

// closeWithin closes the pool but waits no longer than ctx allows: a
// connection still held by an abandoned commit would otherwise hold the
// process past its stop timeout. The process is about to exit; the server
// ends that session itself.
func closeWithin(ctx context.Context, closeFn func()) error {
	done := make(chan struct{})
	go func() {
		closeFn()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return errors.New("database pool: a connection was still in use at the stop timeout")
	}
}

// readinessMessage is the low-sensitivity form of a readiness failure: its
// stable code and detail, without the wrapped driver error.
func readinessMessage(err error) string {
	var re *pgstore.ReadinessError
	if errors.As(err, &re) {
		msg := re.Code + ": " + re.Message()
		if re.Detail != "" {
			msg += ": " + re.Detail
		}
		return msg
	}
	return "readiness check failed"
}
