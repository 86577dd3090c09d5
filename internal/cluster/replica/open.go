package replica

import (
	"context"
	"errors"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"io"
	"slices"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// cliOwner is the claim owner of a read-only CLI session; it never claims.
const cliOwner = "ql-cli"

// Open is the cli.Opener for postgres:// databases. One URL serves both
// halves, but PostgreSQL's roles decide what works: `ql apply` needs the
// admin role's URL (the runtime role cannot publish), `ql runs` needs the
// runtime role's (the admin role cannot read runs), and `ql triggers list`
// works with either. A permission error says which role to use.
func Open(ctx context.Context, dsn string) (*cli.Backend, error) {
	admin, err := pgstore.OpenAdmin(ctx, dsn)
	if err != nil {
		return nil, pgstore.ForCommand(err)
	}
	rt, err := pgstore.OpenRuntime(ctx, dsn, pgstore.RuntimeConfig{Owner: cliOwner})
	if err != nil {
		admin.Close()
		return nil, pgstore.ForCommand(err)
	}
	// A command of one build on a database another build migrated would
	// write what the schema no longer expects, or miss what this binary
	// needs (during an upgrade: the new binary before `ql db migrate`, or
	// the old one after it): refused before anything is read or written,
	// as a replica refuses.
	if err := rt.CheckHistory(ctx); err != nil {
		rt.Close()
		admin.Close()
		return nil, pgstore.ForCommand(explainSchemaRole(err))
	}
	maint := &maintenance{url: dsn}
	return &cli.Backend{
		Catalog: catalog.Service{
			Store:    adminOnly{admin},
			Executor: task.RemoteWorker,
			NowMs:    func() int64 { return time.Now().UnixMilli() },
		},
		Runs:        runtimeOnly{rt},
		LastRuns:    runtimeLast{rt},
		Triggers:    roleHint{rt},
		Definitions: catalogReader{admin},
		ReadLog: func(ctx context.Context, attemptID string, offset, max int64, w io.Writer) (int64, bool, error) {
			next, truncated, err := rt.ReadAttemptLogUpTo(ctx, attemptID, offset, max, w)
			return next, truncated, explainRole(err, "reading logs", "runtime")
		},
		CancelRun: func(ctx context.Context, runID, actor string) (run.Run, run.CancelEffect, error) {
			r, eff, err := rt.CancelRun(ctx, runID, actor)
			return r, eff, explainRole(err, "cancelling runs", "runtime")
		},
		Pause:         adminPause{admin},
		Adopt:         admin,
		ProjectPause:  adminPause{admin},
		ProjectPauses: admin,
		Tokens:        adminTokens{admin},
		Users:         adminUsers{admin},
		Detail:        runtimeDetail{rt},
		Manual:        runtimeManual{rt},
		Unattended:    func(ctx context.Context, runID string) (cli.Unattended, error) { return unattended(ctx, rt, runID) },
		Notifications: runtimeNotifications{rt},
		Audit:         runtimeAudit{rt},
		// Opened at its first use only: the maintenance role's URL is
		// another than the one the other commands use.
		Retention:         maint,
		ProjectDelete:     maint,
		RetentionDefaults: retention.ClusterDefaults,
		RetentionOptions:  pgstore.RetentionOptions,
		Close: func() {
			maint.Close()
			rt.Close()
			admin.Close()
		},
	}, nil
}

// unattended tells what a Run just queued lacks to start: a live replica
// (only a replica grants Runs to workers, and scheduling needs one), and a
// worker that can take it, as the Run's own waiting reason reads the live
// worker sessions. A Run that merely waits its turn (busy workers, an
// earlier Run of its trigger) lacks nothing.
func unattended(ctx context.Context, rt *pgstore.Runtime, runID string) (cli.Unattended, error) {
	var u cli.Unattended
	replicas, err := rt.ReplicaList(ctx)
	if err != nil {
		return u, explainRole(err, "listing replicas", "runtime")
	}
	u.NoReplica = !slices.ContainsFunc(replicas, func(r pgstore.ReplicaInfo) bool { return r.Live })
	d, err := rt.RunGet(ctx, runID)
	if err != nil {
		return u, explainRole(err, "reading runs", "runtime")
	}
	if d.Waiting.ForWantOfAWorker() {
		u.Worker = d.Waiting
	}
	return u, nil
}

// sqlStater is what PostgreSQL errors offer, without importing the driver.
type sqlStater interface{ SQLState() string }

const insufficientPrivilege = "42501"

// explainRole rewrites a permission error into what to do about it: the
// URL's role may not, so the command needs another credential.
func explainRole(err error, what, role string) error {
	var st sqlStater
	if err != nil && errors.As(err, &st) && st.SQLState() == insufficientPrivilege {
		return qlerror.New(qlerror.PermissionDenied, "%s needs the %s role's URL (e.g. QL_DATABASE_URL=postgres://ql_%s@host/db); the role in this URL may not do it", what, role, role)
	}
	return err
}

// explainSchemaRole rewrites a permission error met reading the migration
// history, the first read of every command, into the roles that may read
// QingLong's schema: a role that cannot is none of the runtime, admin or
// migration roles (the worker ingress role, which may only connect, is
// the likely mistake, its name being the ingress's).
func explainSchemaRole(err error) error {
	var st sqlStater
	if err != nil && errors.As(err, &st) && st.SQLState() == insufficientPrivilege {
		return qlerror.New(qlerror.PermissionDenied, "the role in this URL may not read QingLong's schema (the worker ingress role may only connect): "+
			"give the runtime role's URL (e.g. QL_DATABASE_URL=postgres://ql_runtime@host/db), or the admin role's for `ql apply`, `ql tokens` and `ql users`; "+
			"`ql db roles --help` says what each role may do")
	}
	return err
}

// adminPause is pausing and resuming with permission errors explained.
type adminPause struct{ a *pgstore.Admin }

func (p adminPause) TriggerPause(ctx context.Context, r schedule.PauseRequest) (schedule.PauseResult, error) {
	res, err := p.a.TriggerPause(ctx, r)
	return res, explainRole(err, "pausing and resuming triggers", "admin")
}

func (p adminPause) ProjectPause(ctx context.Context, r schedule.ProjectPauseRequest) (schedule.ProjectPauseResult, error) {
	res, err := p.a.ProjectPause(ctx, r)
	return res, explainRole(err, "pausing and resuming projects", "admin")
}

// adminTokens is token management with permission errors explained: only
// the admin role creates, lists and revokes tokens.
type adminTokens struct{ a *pgstore.Admin }

func (t adminTokens) TokenCreate(ctx context.Context, n apitoken.NewToken) (apitoken.Token, error) {
	res, err := t.a.TokenCreate(ctx, n)
	return res, explainRole(err, "creating API tokens", "admin")
}

func (t adminTokens) TokenList(ctx context.Context) ([]apitoken.Token, error) {
	res, err := t.a.TokenList(ctx)
	return res, explainRole(err, "listing API tokens", "admin")
}

func (t adminTokens) TokenRevoke(ctx context.Context, name, actor string) error {
	return explainRole(t.a.TokenRevoke(ctx, name, actor), "revoking API tokens", "admin")
}

// runtimeAudit is `ql audit list`'s read with permission errors
// explained: the runtime and the admin role may read the trail.
type runtimeAudit struct{ r *pgstore.Runtime }

func (a runtimeAudit) AuditList(ctx context.Context, q audit.Query) (audit.Page, error) {
	res, err := a.r.AuditList(ctx, q)
	return res, explainRole(err, "listing the audit trail", "runtime")
}

// runtimeDetail is `triggers show`'s read with permission errors explained.
type runtimeDetail struct{ r *pgstore.Runtime }

func (d runtimeDetail) TriggerDetail(ctx context.Context, triggerID string, ledgerLimit int) (schedule.TriggerDetail, error) {
	res, err := d.r.TriggerDetail(ctx, triggerID, ledgerLimit)
	return res, explainRole(err, "showing a trigger", "runtime")
}

// runtimeManual is run now and backfill with permission errors explained.
type runtimeManual struct{ r *pgstore.Runtime }

func (m runtimeManual) TriggerRunNow(ctx context.Context, req schedule.RunNowRequest) (schedule.RunNowResult, error) {
	res, err := m.r.TriggerRunNow(ctx, req)
	return res, explainRole(err, "running a trigger now", "runtime")
}

func (m runtimeManual) TriggerBackfill(ctx context.Context, req schedule.BackfillRequest) (schedule.BackfillResult, error) {
	res, err := m.r.TriggerBackfill(ctx, req)
	return res, explainRole(err, "backfilling a trigger", "runtime")
}

func (m runtimeManual) RunRerun(ctx context.Context, req schedule.RerunRequest) (schedule.RerunResult, error) {
	res, err := m.r.RunRerun(ctx, req)
	return res, explainRole(err, "re-running a run", "runtime")
}

// adminOnly is the catalog store with permission errors explained.
type adminOnly struct{ a *pgstore.Admin }

func (s adminOnly) ProjectByName(ctx context.Context, name string) (project.Project, error) {
	p, err := s.a.ProjectByName(ctx, name)
	return p, explainRole(err, "publishing definitions", "admin")
}

func (s adminOnly) ProjectSave(ctx context.Context, p project.Project) (catalog.Change, error) {
	c, err := s.a.ProjectSave(ctx, p)
	return c, explainRole(err, "publishing definitions", "admin")
}

func (s adminOnly) TaskByName(ctx context.Context, projectID, name string) (task.Revision, error) {
	r, err := s.a.TaskByName(ctx, projectID, name)
	return r, explainRole(err, "publishing definitions", "admin")
}

func (s adminOnly) TaskPublish(ctx context.Context, p catalog.TaskPublishParams) (catalog.PublishResult, error) {
	r, err := s.a.TaskPublish(ctx, p)
	return r, explainRole(err, "publishing definitions", "admin")
}

func (s adminOnly) TriggerByName(ctx context.Context, projectID, name string) (trigger.Revision, error) {
	r, err := s.a.TriggerByName(ctx, projectID, name)
	return r, explainRole(err, "publishing definitions", "admin")
}

func (s adminOnly) TriggerPublish(ctx context.Context, p catalog.TriggerPublishParams) (catalog.PublishResult, error) {
	r, err := s.a.TriggerPublish(ctx, p)
	return r, explainRole(err, "publishing definitions", "admin")
}

func (s adminOnly) TasksByName(ctx context.Context, projectID string, names []string) (map[string]task.Revision, error) {
	r, err := s.a.TasksByName(ctx, projectID, names)
	return r, explainRole(err, "publishing definitions", "admin")
}

func (s adminOnly) TriggersByName(ctx context.Context, projectID string, names []string) (map[string]trigger.Revision, error) {
	r, err := s.a.TriggersByName(ctx, projectID, names)
	return r, explainRole(err, "publishing definitions", "admin")
}

func (s adminOnly) TitlesOf(ctx context.Context, projectID string) (catalog.Titles, error) {
	t, err := s.a.TitlesOf(ctx, projectID)
	return t, explainRole(err, "publishing definitions", "admin")
}

func (s adminOnly) TriggerNamesOfTasks(ctx context.Context, projectID string, taskIDs []string) ([]string, error) {
	r, err := s.a.TriggerNamesOfTasks(ctx, projectID, taskIDs)
	return r, explainRole(err, "publishing definitions", "admin")
}

func (s adminOnly) Publish(ctx context.Context, fn func(tx catalog.Tx) error) error {
	return explainRole(s.a.Publish(ctx, fn), "publishing definitions", "admin")
}

// runtimeNotifications is the outbox's listing and retry with permission
// errors explained: the admin role may read the outbox but only the
// runtime role writes it, so a retry given the admin role's URL must say
// which role, not fail as a conflict.
type runtimeNotifications struct{ r *pgstore.Runtime }

func (n runtimeNotifications) NotificationsList(ctx context.Context, q notify.ListQuery) ([]notify.Message, string, error) {
	l, next, err := n.r.NotificationsList(ctx, q)
	return l, next, explainRole(err, "listing notifications", "runtime")
}

func (n runtimeNotifications) NotificationRetry(ctx context.Context, id, actor string) (notify.Message, error) {
	m, err := n.r.NotificationRetry(ctx, id, actor)
	return m, explainRole(err, "retrying notifications", "runtime")
}

// runtimeOnly is the run reader with permission errors explained.
type runtimeOnly struct{ r run.Reader }

func (s runtimeOnly) RunList(ctx context.Context, p run.ListParams) ([]run.Run, string, error) {
	l, next, err := s.r.RunList(ctx, p)
	return l, next, explainRole(err, "reading runs", "runtime")
}

func (s runtimeOnly) RunGet(ctx context.Context, id string) (run.Detail, error) {
	d, err := s.r.RunGet(ctx, id)
	return d, explainRole(err, "reading runs", "runtime")
}

// runtimeLast is the triggers' last Runs with permission errors explained:
// the admin role, which may list triggers, may not read Runs.
type runtimeLast struct{ r run.LastReader }

func (s runtimeLast) RunsLast(ctx context.Context, triggerIDs []string) (map[string]run.Last, error) {
	last, err := s.r.RunsLast(ctx, triggerIDs)
	return last, explainRole(err, "reading the triggers' last Runs", "runtime")
}

// roleHint is the trigger status reader with permission errors explained.
type roleHint struct{ r schedule.StatusReader }

func (s roleHint) TriggerList(ctx context.Context, p schedule.TriggerListParams) ([]schedule.TriggerStatus, string, error) {
	l, next, err := s.r.TriggerList(ctx, p)
	return l, next, explainRole(err, "listing triggers", "runtime")
}
