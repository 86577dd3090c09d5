package replica

import (
	"context"
	"errors"
	"log/slog"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
)

// Diagnostic codes of retention on a replica.
const (
	CodeRetentionOff      = "serve.retention_not_run"
	CodeRetentionStarted  = "serve.retention_started"
	CodeRetentionNotReady = "serve.retention_not_ready"
)

// maintenance is the retention loop's store: the maintenance role's pool,
// opened (and its readiness checked) at the loop's first pass and again
// after the database was lost, independently of the runtime's activation,
// so retention never holds up admission and admission never waits for it.
// Only the loop's one goroutine uses it, and Close runs after the loop
// stopped.
type maintenance struct {
	url, prefix string
	// log, when set, checks readiness before the first pass and reports
	// a database that is not ready; `ql retention run` leaves it nil and
	// relies on the role's privileges alone.
	log *slog.Logger
	m   *pgstore.Maintenance
}

var _ retention.Store = (*maintenance)(nil)

func (mt *maintenance) open(ctx context.Context) (*pgstore.Maintenance, error) {
	if mt.m != nil {
		return mt.m, nil
	}
	m, err := pgstore.OpenMaintenance(ctx, mt.url, mt.prefix)
	if err != nil {
		return nil, maintenanceLogin(err)
	}
	if mt.log == nil {
		mt.m = m
		return m, nil
	}
	if err := m.Ready(ctx); err != nil {
		m.Close()
		mt.log.Error("retention waits: the maintenance role's database is not ready", slog.String("code", CodeRetentionNotReady), slog.String("reason", readinessMessage(err)))
		return nil, err
	}
	mt.m = m
	return m, nil
}

// maintenanceLogin says which setting a refused login of the maintenance
// role comes from and how to give that role its own password: a replica's
// $PGPASSWORD is its runtime role's, and pgx (as libpq) sends it for every
// role and then never reads the password file. Only the server's cause is
// kept of the generic refusal, whose advice this replaces.
func maintenanceLogin(err error) error {
	if !pgstore.LoginRefused(err) {
		return err
	}
	cause := err
	var qe *qlerror.Error
	if errors.As(err, &qe) && qe.Err != nil {
		cause = qe.Err
	}
	return qlerror.Wrap(qlerror.Unauthenticated, cause, "retention: PostgreSQL refused the login of the maintenance role's URL ($%s, or --database-maintenance-url); "+
		"$PGPASSWORD, when set, is sent for every role and the password file is then not read, so give this role's password in $%s itself "+
		"(never on the command line), or unset $PGPASSWORD and keep one line per role in the password file ($PGPASSFILE, else ~/.pgpass); "+
		"`ql db roles` creates the role and sets its password", cli.EnvMaintenanceURL, cli.EnvMaintenanceURL)
}

// settle drops the pool after a lost connection; the next pass opens a
// fresh one.
func (mt *maintenance) settle(err error) error {
	var st sqlStater
	if err != nil && errors.As(err, &st) && st.SQLState() == insufficientPrivilege {
		return qlerror.New(qlerror.PermissionDenied, "retention needs the maintenance role: set $%s to its URL (e.g. postgres://ql_maintenance@host/db; `ql db roles` creates the role); the role in this URL may not delete", cli.EnvMaintenanceURL)
	}
	if qlerror.Is(err, qlerror.Unavailable) && mt.m != nil {
		mt.m.Close()
		mt.m = nil
	}
	return err
}

func (mt *maintenance) RetentionBatch(ctx context.Context, b retention.Batch) (retention.Result, error) {
	m, err := mt.open(ctx)
	if err != nil {
		return retention.Result{}, err
	}
	res, err := m.RetentionBatch(ctx, b)
	return res, mt.settle(err)
}

func (mt *maintenance) RetentionEstimate(ctx context.Context, p retention.Policy) (map[retention.Kind]retention.Deleted, error) {
	m, err := mt.open(ctx)
	if err != nil {
		return nil, err
	}
	est, err := m.RetentionEstimate(ctx, p)
	return est, mt.settle(err)
}

func (mt *maintenance) RetentionCompact(ctx context.Context) (int64, error) {
	m, err := mt.open(ctx)
	if err != nil {
		return 0, err
	}
	n, err := m.RetentionCompact(ctx)
	return n, mt.settle(err)
}

// RetentionFinish has nothing to finish on PostgreSQL (pgstore).
func (mt *maintenance) RetentionFinish(context.Context) ([]retention.Kept, error) { return nil, nil }

// ProjectDelete deletes an archived project as the maintenance role, the
// one that deletes Runs (`ql projects delete`).
func (mt *maintenance) ProjectDelete(ctx context.Context, r project.DeleteRequest) (project.DeleteResult, error) {
	m, err := mt.open(ctx)
	if err != nil {
		return project.DeleteResult{}, err
	}
	res, err := m.ProjectDelete(ctx, r)
	if qlerror.Is(err, qlerror.Unavailable) {
		mt.Close()
	}
	return res, err
}

// Close releases the pool, if open.
func (mt *maintenance) Close() {
	if mt.m != nil {
		mt.m.Close()
		mt.m = nil
	}
}

// startRetention starts the retention loop when a maintenance URL was
// given, with every setting off too (its passes then delete expired
// console sessions only); otherwise it says once why this replica does not
// run it, unless every setting is off.
func (r *replica) startRetention(ctx context.Context) error {
	rs := r.s.Retention
	if rs.URL == "" {
		if rs.Policy.Off() {
			return nil
		}
		r.log.Info("retention is not run by this replica: give it the maintenance role's URL ($"+cli.EnvMaintenanceURL+"), or schedule `ql retention run` with it",
			slog.String("code", CodeRetentionOff), slog.String("retention", rs.Policy.String()))
		return nil
	}
	r.maint = &maintenance{url: rs.URL, prefix: r.s.RolePrefix, log: r.log}
	var err error
	r.retain, err = retention.NewLoop(retention.LoopConfig{
		Store: r.maint, Policy: rs.Policy, Cadence: r.s.RetentionCadence, StopTimeout: r.s.Coordinator.StopTimeout, Logger: r.log,
		Options: pgstore.RetentionOptions, OnPass: r.retentionObserver(),
	})
	if err != nil {
		return err
	}
	r.log.Info("retention runs on this replica", slog.String("code", CodeRetentionStarted), slog.String("retention", rs.Policy.String()))
	return r.retain.Start(ctx)
}

// stopRetention stops the loop, then closes its pool.
func (r *replica) stopRetention(ctx context.Context) error {
	if r.retain == nil {
		return nil
	}
	err := r.retain.Stop(ctx)
	r.maint.Close()
	return err
}
