package clusterserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/availability"
	"github.com/qinglong/qinglong/internal/cli"
	"github.com/qinglong/qinglong/internal/coordinator"
	"github.com/qinglong/qinglong/internal/httpapi"
	"github.com/qinglong/qinglong/internal/pgstore"
	"github.com/qinglong/qinglong/internal/recovery"
)

// Diagnostic codes of the composition root.
const (
	CodeListening       = "serve.http_listening"
	CodeReady           = "serve.ready"
	CodeNotReady        = "serve.database_not_ready"
	CodeAdmissionClosed = "serve.admission_closed"
	CodeStopped         = "serve.stopped"
	CodeUnavailable     = "serve.database_unavailable"
)

// Serve is the cli.ServeFunc of the cluster profile. It returns nil after a
// clean drain on SIGTERM/SIGINT (ctx ending).
func Serve(ctx context.Context, cmd *cobra.Command, f *cli.ServeFlags) error {
	s, err := settingsFrom(f)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil)).With(slog.String("replica", s.Coordinator.Owner))
	return serveReplica(ctx, s, log)
}

// replica is what a started replica holds, for the ordered stop.
type replica struct {
	log   *slog.Logger
	rt    *pgstore.Runtime
	http  *httpapi.Server
	coord *coordinator.Coordinator
	adm   *admission
}

func serveReplica(ctx context.Context, s settings, log *slog.Logger) error {
	latch := availability.New()
	r := &replica{log: log, adm: &admission{latch: latch}}
	if err := r.start(ctx, s, latch); err != nil && ctx.Err() == nil {
		// Startup failed: release what started; the startup error is the
		// one worth reporting.
		_ = r.stop(s.Coordinator.StopTimeout)
		return err
	}
	// Running, or a signal interrupted startup: either way a clean stop.
	<-ctx.Done()
	return r.stop(s.Coordinator.StopTimeout)
}

func (r *replica) start(ctx context.Context, s settings, latch *availability.Latch) error {
	rt, err := pgstore.OpenRuntime(ctx, s.DatabaseURL, pgstore.RuntimeConfig{Owner: s.Coordinator.Owner, Lease: s.Coordinator.Lease, RolePrefix: s.RolePrefix})
	if err != nil {
		return err
	}
	r.rt = rt
	r.http, err = httpapi.Listen(s.HTTPAddr, httpapi.NewHandler(httpapi.Config{
		Runs: rt, Triggers: rt, Ready: r.adm.ready, Log: r.log, Observe: r.observe(latch),
	}))
	if err != nil {
		return err
	}
	r.log.Info("HTTP listening; not ready until startup completes", slog.String("code", CodeListening), slog.String("addr", r.http.Addr()))
	if err := rt.Ready(ctx); err != nil {
		r.log.Error("database not ready", slog.String("code", CodeNotReady), slog.String("error", readinessMessage(err)))
		return err
	}
	if _, err := (recovery.Gate{Source: rt, PageSize: recovery.MaxPageSize, Log: r.log}).Run(ctx); err != nil {
		return fmt.Errorf("startup recovery did not converge: %w", err)
	}
	r.coord, err = coordinator.New(s.Coordinator, rt, r.log, latch)
	if err != nil {
		return err
	}
	if err := r.coord.Start(ctx); err != nil {
		return err
	}
	r.adm.open()
	r.log.Info("replica ready: admission open", slog.String("code", CodeReady))
	return nil
}

// observe latches the replica unavailable when an API request finds the
// database gone.
func (r *replica) observe(latch *availability.Latch) func(error) {
	return func(err error) {
		if latch.Observe(err) {
			r.log.Error("database connection lost; this replica stays unavailable until it is restarted", slog.String("code", CodeUnavailable))
		}
	}
}

// stop closes admission, drains the scheduler, shuts HTTP down and closes
// the pool, all within timeout. It returns the scheduler's drain-timeout
// error, if any.
func (r *replica) stop(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	r.adm.close()
	r.log.Info("admission closed; draining", slog.String("code", CodeAdmissionClosed))
	var errs []error
	if r.coord != nil {
		errs = append(errs, r.coord.Stop(ctx))
	}
	if r.http != nil {
		errs = append(errs, r.http.Shutdown(ctx))
	}
	if r.rt != nil {
		errs = append(errs, closeWithin(ctx, r.rt.Close))
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
		return re.Code + ": " + re.Message() + " " + re.Detail
	}
	return "readiness check failed"
}
