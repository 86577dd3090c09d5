// Package console serves the web console: server-rendered pages over the
// same stores and token store as the API, on the API's listener. A browser
// signs in with an API token once and then holds a session cookie; the
// token's scope decides which actions a page offers and every action
// checks it again.
package console

import (
	"container/list"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/authlog"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/databackup"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/scripts"
	"github.com/qinglong/qinglong/internal/core/websession"
)

//go:embed assets
var assets embed.FS

// Config is what the console reads and changes, as the API's Config.
type Config struct {
	Runs run.Reader
	// LastRuns reads the newest Run of each trigger the triggers list
	// shows; nil hides the list's last-run column.
	LastRuns run.LastReader
	// Triggers lists the triggers and counts a filtered list's pages,
	// a page and its count from one snapshot.
	Triggers schedule.StatusPager
	Detail   schedule.DetailReader
	Tokens   apitoken.Authenticator
	// Uses records the last use of a token a session was signed in with,
	// as the API records its own (default: one of the console's own; give
	// the API's, so a token used through both is written at most once a
	// minute).
	Uses *apitoken.Uses
	// Users signs console accounts in; nil where the server has none (the
	// sign-in page then offers only the token).
	Users account.Authenticator
	// FirstOwner and Setup let the first owner be created on the setup
	// page while no account exists, with the one-time code Setup holds
	// the hash of (the server logs the code); nil: no setup page.
	FirstOwner account.FirstOwner
	Setup      *account.SetupCode
	// Passwords changes a signed-in user's own password on the account
	// page, only while the hash its current password was checked against
	// is still the account's; nil where the server cannot (the page then
	// gives the command).
	Passwords account.PasswordChanger
	// TwoStep keeps the users' two-step secrets: a user turns it on and
	// off on the account page, and a sign-in asks for a code after the
	// password when it is on. It keeps whether every user must have it
	// too, which an owner changes on the account page, and a user without
	// it is then kept at its set-up (twostep_wall.go). Nil where the
	// server has none: no user is asked, and the account page does not
	// offer it.
	TwoStep account.TwoStepStore
	// TokenAdmin lists, creates and revokes tokens on the tokens page;
	// nil where the server's role cannot (the page is then not offered).
	TokenAdmin apitoken.Manager
	// Pauser, Cancel and Manual are nil where the server cannot pause,
	// cancel or run now and backfill; the console then offers no such
	// button or form.
	Pauser schedule.Pauser
	// ProjectPauser pauses and resumes whole projects (the triggers list
	// of one project offers it); nil where the server cannot.
	ProjectPauser schedule.ProjectPauser
	// ProjectDeleter deletes archived projects (the triggers list of an
	// archived project offers it to an admin); nil where the server
	// cannot.
	ProjectDeleter project.Deleter
	// ProjectPauses reads a project's pause state, so that the triggers
	// list of one project offers only the one of Pause project and Resume
	// project that applies, and says since when it is paused; the list
	// offers neither without it.
	ProjectPauses schedule.ProjectPauseReader
	Cancel        func(ctx context.Context, runID, actor string) (run.Run, run.CancelEffect, error)
	Manual        schedule.Manual
	// Notifications lists the notification outbox and retries dead
	// notifications (the notifications page; Retry needs operate); nil
	// where the server cannot, which then offers no such page.
	Notifications notify.Manager
	// TryChannel sends one test message of a project to its channel and
	// waits for the outcome (the Notifications page's Send test, operate
	// scope); nil where the server cannot, which then offers no button.
	TryChannel func(ctx context.Context, projectID, project string, c notify.Channel) notify.Trial
	// ChannelTests records in the audit trail who tested which channel,
	// and how it went, once the test message went; nil records nothing.
	ChannelTests audit.Appender
	// Audit lists the audit trail (the audit page, admin scope); nil
	// where the server cannot, which then offers no such page.
	Audit audit.Reader
	// NotificationProjects places a notification in its project, so that
	// a user bound to projects retries its projects' only; nil refuses
	// such a user every retry.
	NotificationProjects notify.Placer
	// Enabler enables and disables triggers (a new revision each); nil
	// where the server's role may not publish. Admin scope only.
	Enabler catalog.TriggerEnabler
	// Definitions reads and publishes definitions files (the definitions
	// page); nil where the server's database role may not publish.
	Definitions *catalog.Service
	// Export reads a project's definitions whole, for the definitions
	// page to show (read-only where Definitions is nil: a cluster
	// replica's runtime role reads the catalog but may not publish).
	Export catalog.DefinitionsReader
	// MissingSecrets names the secrets of a list the secrets file of
	// this machine does not define, for the definitions page's note; nil
	// where the commands run elsewhere (a cluster's workers hold their
	// own secrets), and the page then notes nothing of secrets.
	MissingSecrets func(refs []string) ([]string, error)
	// Secrets is the secrets file of this machine, which runs the
	// commands: the secrets page lists, sets and deletes its secrets
	// (admin scope only). Nil where the commands run elsewhere (a
	// cluster's workers hold their own): the page then says where
	// secrets are kept, and the nav does not offer it.
	Secrets *process.Secrets
	// SecretsRecord records in the audit trail who set or deleted a
	// secret of Secrets, once the file's change succeeded; nil records
	// nothing.
	SecretsRecord audit.Appender
	// Scripts is the scripts folder of this machine, which runs the
	// commands: the Scripts page lists, shows, edits and changes its
	// files (admin scope, over every project). Nil where the commands run
	// elsewhere (a cluster's workers, whose hosts hold the scripts): the
	// page then says where scripts are kept, and the nav does not offer
	// it.
	Scripts *scripts.Folder
	// ScriptsRecord records in the audit trail who changed which file of
	// Scripts, or which subscription pulling into it (the Subscriptions
	// page), once the change is done; nil records nothing.
	ScriptsRecord audit.Appender
	// ScriptsHiddenFrom names the account tasks run as (--run-as) when it
	// cannot reach Scripts (a folder inside the 0700 data directory): the
	// page says so, and what to do.
	ScriptsHiddenFrom string
	// Dependencies installs the packages the scripts need on this
	// machine, which runs the commands (the Dependencies page, admin
	// sessions of every project). Nil where the commands run elsewhere (a
	// cluster's workers, each installing its own): the page then says so,
	// and the nav does not offer it.
	Dependencies *deps.Service
	// ReadLog copies at most max bytes (max > 0) of an attempt's output
	// from offset on to w, as the API's does; nil where the server cannot
	// read logs (the page then shows none).
	ReadLog func(ctx context.Context, attemptID string, offset, max int64, w io.Writer) (next int64, truncated bool, err error)
	// Backlog reads the due, unclaimed schedule rows for the overview's
	// backlog (bounded by limit), of the projects named in alone when in
	// is not empty (a bound user's); nil hides it.
	Backlog func(ctx context.Context, limit int, in []string) (schedule.Backlog, error)
	// Workers lists the remote workers (the cluster); nil on profiles
	// without them, which then offer no workers page: their address says
	// instead that the server runs every command itself.
	Workers func(ctx context.Context) ([]Worker, error)
	// LocalConcurrency is how many commands a single-node server's own
	// executor runs at once, which that answer gives; 0 where the
	// commands run elsewhere.
	LocalConcurrency int
	// Replicas lists the cluster's replicas by their heartbeats for the
	// overview; nil on profiles without them, which then show none.
	Replicas func(ctx context.Context) ([]Replica, error)
	// Backup makes the backup archives of this server's data directory
	// (the Backup page, admin sessions of every project); nil where the
	// database is not the server's file (a cluster replica's is
	// PostgreSQL's): the page then says how to back that up, and the
	// navigation does not offer it.
	Backup databackup.Source
	// BackupRecord records in the audit trail who downloaded a backup,
	// its size and how long it took; nil records nothing.
	BackupRecord audit.Appender
	// Writes holds every form that writes, and the sign-in (which records
	// the sign-in and the token's use), while a write would be lost; nil:
	// never. The pages are still served meanwhile.
	Writes hold.Gate
	// Sessions keeps the sessions in the database, so that one made on
	// any replica works on every replica and outlives a restart
	// (sessionstore.go); nil keeps them in this process alone, for a
	// console served without a database (a handler under test).
	Sessions websession.Store
	// Secure marks the console's cookies Secure and names the session
	// cookie with the __Host- prefix: set it when serving TLS, or when the
	// console's address as people reach it is https (PublicTLS: a
	// TLS-terminating proxy in front of a plain-HTTP listener).
	Secure bool
	// PublicURL is the console's address as people reach it
	// (--console-url), which a sign-in sent from a page loaded over plain
	// HTTP while the cookies are Secure is sent to (plainaddress.go); ""
	// where none is given.
	PublicURL string
	// SessionTTL is how long a session lasts after sign-in (default
	// DefaultSessionTTL).
	SessionTTL time.Duration
	// SessionIdle ends a session unused this long, before its lifetime
	// is out (default DefaultSessionIdle); a use is recorded at most once
	// per websession.SeenEvery, so the session may end up to that much
	// sooner after the last page. An open live log is a use while it
	// sends (stillFollowed).
	SessionIdle time.Duration
	// RequestTimeout bounds the store calls of one request (zero or above
	// DefaultRequestTimeout: DefaultRequestTimeout); a run's live log,
	// which streams for as long as the run does, gets it for each of its
	// reads instead. It is shorter than the server's write timeout, so a
	// page out of time is answered with a page saying so instead of a
	// connection cut mid-answer.
	RequestTimeout time.Duration
	// MisfireGrace is the schedulers' --misfire-grace: a clock Run admitted
	// later than this after its due time is a catch-up, which the
	// overview's admission lag leaves out as the scheduler's metrics count
	// it apart (0: every late admission is one, as for the schedulers).
	MisfireGrace time.Duration
	// NowMs is the clock (default: the system clock).
	NowMs func() int64
	Log   *slog.Logger
	// Binary names the program that serves (default ql) in the commands
	// the pages and refusals tell the user to run: the user of the edge
	// binary has no ql to run them with.
	Binary string
	// DatabaseFlags are what a command the pages give (create the first
	// account, a token, show a trigger's whole ledger) adds to reach this
	// server's database, with a space before them (" --data-dir DIR");
	// empty where it finds the database without (the data directory is
	// the working one, or a cluster's URL is in the environment).
	DatabaseFlags string
	// AdminCredentials says that accounts and tokens are made with the
	// cluster's admin role, whose URL `ql users` and `ql tokens` read
	// from $QL_DATABASE_ADMIN_URL: the sign-in page's commands then say
	// so, since the replica itself runs as the runtime role, which may
	// create neither.
	AdminCredentials bool
}

// DefaultRequestTimeout is the longest a console request's store calls
// take: the longest a handler may take under the server's write timeout,
// as an API request's.
const DefaultRequestTimeout = httpserve.MaxHandlerTime

// DefaultSessionTTL is a working day: a session held longer signs in again.
const DefaultSessionTTL = 12 * time.Hour

// DefaultSessionIdle is how long a session may go unused: a browser left
// signed in on a shared or lost machine stops being a way in within the
// hour, not at the end of the day.
const DefaultSessionIdle = time.Hour

// maxForm caps a console form's body.
const maxForm = 16 << 10

// maxSecretForm caps the secrets page's set form: the longest value a
// secret may have, each byte of it escaped (%XX) as a form may send it.
const maxSecretForm = 3*process.MaxSecretLen + maxForm

// Cookie names. The sign-in form's CSRF cookie exists before any session.
const (
	sessionCookie = "ql_session"
	signinCookie  = "ql_signin"
	langCookie    = "ql_lang"
	themeCookie   = "ql_theme"
)

// The diagnostic codes of the console's log lines, on every profile: an API
// token created or revoked (with its name and who did it), and the
// warnings and errors of a store that did not answer a page, a sign-in, a
// session check or a live log in time, of a page that could not be
// rendered, or of a log download a failed read cut off after its first
// bytes.
const (
	CodeTokenCreated       = "console.token_created"
	CodeTokenRevoked       = "console.token_revoked"
	CodeSessionCheckFailed = "console.session_check_failed"
	CodeSigninStoreFailed  = "console.signin_store_failed"
	CodeSigninRecordFailed = "console.signin_record_failed"
	CodeBacklogFailed      = "console.backlog_failed"
	CodeWorkersFailed      = "console.workers_failed"
	CodeReplicasFailed     = "console.replicas_failed"
	CodeRenderFailed       = "console.render_failed"
	CodeLiveLogStopped     = "console.live_log_stopped"
	CodeLogDownloadCut     = "console.log_download_cut"
	// CodeBackupDownloaded and CodeBackupCut: a backup archive was sent
	// whole, or cut off (the browser went away, a file could not be
	// read) after its first bytes.
	CodeBackupDownloaded   = "console.backup_downloaded"
	CodeBackupCut          = "console.backup_cut"
	CodeInternalError      = "console.internal_error"
	CodeSessionStoreFailed = "console.session_store_failed"
	CodeSessionSeenFailed  = "console.session_seen_failed"
	// CodeRequestOutOfTime: a page ran out of its time limit
	// (httpserve.NoteOutOfTime).
	CodeRequestOutOfTime = "console.request_out_of_time"
)

// signedOut is the scope of routes that need no session.
const signedOut apitoken.Scope = ""

// route is one console route: method, mux pattern, the scope a session's
// token needs, its handler, and how it finds the project it shows or acts
// on for a user bound to projects.
type route struct {
	method, pattern string
	scope           apitoken.Scope
	handler         func(c *Console) handlerFunc
	projects        projectRule
}

// handlerFunc serves one request with its session (zero when signed out).
type handlerFunc func(w http.ResponseWriter, r *http.Request, s *session)

// routes is the console's one route table. Every pattern but the sign-in
// page and the assets needs a session whose token allows the scope, and
// every POST needs the session's CSRF token;
// TestEveryConsoleRouteNeedsASessionAndItsScope walks it whole.
var routes = []route{
	{http.MethodGet, "/signin", signedOut, func(c *Console) handlerFunc { return c.signinPage }, noProject},
	{http.MethodPost, "/signin", signedOut, func(c *Console) handlerFunc { return c.signin }, noProject},
	{http.MethodGet, "/setup", signedOut, func(c *Console) handlerFunc { return c.setupPage }, noProject},
	{http.MethodPost, "/setup", signedOut, func(c *Console) handlerFunc { return c.setup }, noProject},
	{http.MethodGet, "/account", apitoken.Read, func(c *Console) handlerFunc { return c.accountPage }, noProject},
	{http.MethodPost, "/account/password", apitoken.Read, func(c *Console) handlerFunc { return c.passwordChange }, noProject},
	{http.MethodPost, "/account/two-step/begin", apitoken.Read, func(c *Console) handlerFunc { return c.twoStepBegin }, noProject},
	{http.MethodGet, "/account/two-step/qr.png", apitoken.Read, func(c *Console) handlerFunc { return c.twoStepQR }, noProject},
	{http.MethodPost, "/account/two-step/confirm", apitoken.Read, func(c *Console) handlerFunc { return c.twoStepConfirm }, noProject},
	{http.MethodPost, "/account/two-step/off", apitoken.Read, func(c *Console) handlerFunc { return c.twoStepOff }, noProject},
	{http.MethodPost, "/account/two-step/required", apitoken.Admin, func(c *Console) handlerFunc { return c.twoStepRequireForm }, adminOfEveryProject},
	{http.MethodPost, "/signin/two-step", signedOut, func(c *Console) handlerFunc { return c.signinTwoStep }, noProject},
	{http.MethodGet, "/assets/", signedOut, func(*Console) handlerFunc { return serveAsset }, noProject},
	{http.MethodPost, "/signout", apitoken.Read, func(c *Console) handlerFunc { return c.signout }, noProject},
	{http.MethodGet, "/{$}", apitoken.Read, func(c *Console) handlerFunc { return c.overview }, listed},
	{http.MethodGet, "/triggers", apitoken.Read, func(c *Console) handlerFunc { return c.triggers }, listed},
	{http.MethodGet, "/triggers/{id}", apitoken.Read, func(c *Console) handlerFunc { return c.triggerDetail }, triggerProject},
	{http.MethodPost, "/triggers/{id}/pause", apitoken.Operate, func(c *Console) handlerFunc { return c.pause(true) }, triggerProject},
	{http.MethodPost, "/triggers/{id}/resume", apitoken.Operate, func(c *Console) handlerFunc { return c.pause(false) }, triggerProject},
	{http.MethodPost, "/projects/{project}/pause", apitoken.Operate, func(c *Console) handlerFunc { return c.projectPause(true) }, pathProject},
	{http.MethodPost, "/projects/{project}/resume", apitoken.Operate, func(c *Console) handlerFunc { return c.projectPause(false) }, pathProject},
	{http.MethodPost, "/projects/{project}/delete", apitoken.Admin, func(c *Console) handlerFunc { return c.projectDelete }, pathProject},
	{http.MethodPost, "/triggers/{id}/run", apitoken.Operate, func(c *Console) handlerFunc { return c.runNow }, triggerProject},
	{http.MethodPost, "/triggers/{id}/backfill/preview", apitoken.Operate, func(c *Console) handlerFunc { return c.backfillPreview }, triggerProject},
	{http.MethodPost, "/triggers/{id}/backfill", apitoken.Operate, func(c *Console) handlerFunc { return c.backfill }, triggerProject},
	{http.MethodPost, "/triggers/batch", apitoken.Operate, func(c *Console) handlerFunc { return c.batch }, listed},
	{http.MethodPost, "/triggers/{id}/enable", apitoken.Admin, func(c *Console) handlerFunc { return c.enable(true) }, triggerProject},
	{http.MethodPost, "/triggers/{id}/disable", apitoken.Admin, func(c *Console) handlerFunc { return c.enable(false) }, triggerProject},
	{http.MethodGet, "/runs", apitoken.Read, func(c *Console) handlerFunc { return c.runs }, listed},
	{http.MethodGet, "/runs/{id}", apitoken.Read, func(c *Console) handlerFunc { return c.runDetail }, runProject},
	{http.MethodGet, "/runs/{id}/log", apitoken.Read, func(c *Console) handlerFunc { return c.logStream }, runProject},
	{http.MethodGet, "/runs/{id}/download", apitoken.Read, func(c *Console) handlerFunc { return c.logDownload }, runProject},
	{http.MethodPost, "/runs/{id}/cancel", apitoken.Operate, func(c *Console) handlerFunc { return c.cancel }, runProject},
	{http.MethodPost, "/runs/cancel", apitoken.Operate, func(c *Console) handlerFunc { return c.cancelRuns }, listed},
	{http.MethodGet, "/notifications", apitoken.Read, func(c *Console) handlerFunc { return c.notifications }, listed},
	{http.MethodPost, "/notifications/{id}/retry", apitoken.Operate, func(c *Console) handlerFunc { return c.retryNotification }, notificationProject},
	{http.MethodPost, "/projects/{project}/notifications/channels/{name}/test", apitoken.Operate, func(c *Console) handlerFunc { return c.testChannel }, pathProject},
	{http.MethodGet, "/definitions", apitoken.Admin, func(c *Console) handlerFunc { return c.definitions }, adminOfEveryProject},
	{http.MethodPost, "/definitions", apitoken.Admin, func(c *Console) handlerFunc { return c.editDefinitions }, adminOfEveryProject},
	{http.MethodPost, "/definitions/preview", apitoken.Admin, func(c *Console) handlerFunc { return c.previewDefinitions }, adminOfEveryProject},
	{http.MethodPost, "/definitions/apply", apitoken.Admin, func(c *Console) handlerFunc { return c.applyDefinitions }, adminOfEveryProject},
	{http.MethodGet, "/definitions/import", apitoken.Admin, func(c *Console) handlerFunc { return c.importForm }, adminOfEveryProject},
	{http.MethodPost, "/definitions/import/preview", apitoken.Admin, func(c *Console) handlerFunc { return c.importPreview }, adminOfEveryProject},
	{http.MethodGet, "/definitions/qinglong", apitoken.Admin, func(c *Console) handlerFunc { return c.panelForm }, adminOfEveryProject},
	{http.MethodPost, "/definitions/qinglong/preview", apitoken.Admin, func(c *Console) handlerFunc { return c.panelPreviewPage }, adminOfEveryProject},
	{http.MethodPost, "/definitions/qinglong/apply", apitoken.Admin, func(c *Console) handlerFunc { return c.panelApply }, adminOfEveryProject},
	{http.MethodGet, "/projects/{project}/definitions.yaml", apitoken.Admin, func(c *Console) handlerFunc { return c.definitionsDownload }, pathProject},
	{http.MethodGet, "/definitions/new", apitoken.Admin, func(c *Console) handlerFunc { return c.newTaskForm }, adminOfEveryProject},
	{http.MethodPost, "/definitions/new", apitoken.Admin, func(c *Console) handlerFunc { return c.newTaskPreview }, adminOfEveryProject},
	{http.MethodGet, "/definitions/task", apitoken.Admin, func(c *Console) handlerFunc { return c.editTaskForm }, adminOfEveryProject},
	{http.MethodPost, "/definitions/task", apitoken.Admin, func(c *Console) handlerFunc { return c.editTaskPreview }, adminOfEveryProject},
	{http.MethodGet, "/definitions/schedule", apitoken.Admin, func(c *Console) handlerFunc { return c.editScheduleForm }, adminOfEveryProject},
	{http.MethodPost, "/definitions/schedule", apitoken.Admin, func(c *Console) handlerFunc { return c.editSchedulePreview }, adminOfEveryProject},
	{http.MethodGet, "/definitions/env", apitoken.Admin, func(c *Console) handlerFunc { return c.projectEnvForm }, adminOfEveryProject},
	{http.MethodPost, "/definitions/env", apitoken.Admin, func(c *Console) handlerFunc { return c.projectEnvPreview }, adminOfEveryProject},
	{http.MethodGet, "/workers", apitoken.Read, func(c *Console) handlerFunc { return c.workers }, everyProject},
	{http.MethodGet, "/tokens", apitoken.Admin, func(c *Console) handlerFunc { return c.tokensPage }, adminOfEveryProject},
	{http.MethodPost, "/tokens", apitoken.Admin, func(c *Console) handlerFunc { return c.tokenCreate }, adminOfEveryProject},
	{http.MethodPost, "/tokens/{name}/revoke", apitoken.Admin, func(c *Console) handlerFunc { return c.tokenRevoke }, adminOfEveryProject},
	{http.MethodGet, "/audit", apitoken.Admin, func(c *Console) handlerFunc { return c.auditTrail }, adminOfEveryProject},
	{http.MethodGet, "/secrets", apitoken.Admin, func(c *Console) handlerFunc { return c.secretsPage }, adminOfEveryProject},
	{http.MethodPost, "/secrets", apitoken.Admin, func(c *Console) handlerFunc { return c.secretSet }, adminOfEveryProject},
	{http.MethodPost, "/secrets/delete", apitoken.Admin, func(c *Console) handlerFunc { return c.secretDelete }, adminOfEveryProject},
	{http.MethodPost, "/runs/{id}/rerun", apitoken.Operate, func(c *Console) handlerFunc { return c.rerun }, runProject},
	{http.MethodGet, "/scripts", apitoken.Admin, func(c *Console) handlerFunc { return c.scriptsPage }, adminOfEveryProject},
	{http.MethodGet, "/scripts/file", apitoken.Admin, func(c *Console) handlerFunc { return c.scriptFilePage }, adminOfEveryProject},
	{http.MethodGet, "/scripts/download", apitoken.Admin, func(c *Console) handlerFunc { return c.scriptDownload }, adminOfEveryProject},
	{http.MethodGet, "/scripts/edit", apitoken.Admin, func(c *Console) handlerFunc { return c.scriptEditPage }, adminOfEveryProject},
	{http.MethodPost, "/scripts/edit", apitoken.Admin, func(c *Console) handlerFunc { return c.scriptSave }, adminOfEveryProject},
	{http.MethodGet, "/scripts/new", apitoken.Admin, func(c *Console) handlerFunc { return c.scriptNewPage }, adminOfEveryProject},
	{http.MethodPost, "/scripts/new", apitoken.Admin, func(c *Console) handlerFunc { return c.scriptCreate }, adminOfEveryProject},
	{http.MethodPost, "/scripts/mkdir", apitoken.Admin, func(c *Console) handlerFunc { return c.scriptMkdir }, adminOfEveryProject},
	{http.MethodPost, "/scripts/upload", apitoken.Admin, func(c *Console) handlerFunc { return c.scriptUpload }, adminOfEveryProject},
	{http.MethodGet, "/scripts/rename", apitoken.Admin, func(c *Console) handlerFunc { return c.scriptRenamePage }, adminOfEveryProject},
	{http.MethodPost, "/scripts/rename", apitoken.Admin, func(c *Console) handlerFunc { return c.scriptRename }, adminOfEveryProject},
	{http.MethodGet, "/scripts/delete", apitoken.Admin, func(c *Console) handlerFunc { return c.scriptDeletePage }, adminOfEveryProject},
	{http.MethodPost, "/scripts/delete", apitoken.Admin, func(c *Console) handlerFunc { return c.scriptDelete }, adminOfEveryProject},
	{http.MethodGet, "/scripts/tasks", apitoken.Admin, func(c *Console) handlerFunc { return c.scriptsImportForm }, adminOfEveryProject},
	{http.MethodPost, "/scripts/tasks/preview", apitoken.Admin, func(c *Console) handlerFunc { return c.scriptsImportPreview }, adminOfEveryProject},
	{http.MethodGet, "/subscriptions", apitoken.Admin, func(c *Console) handlerFunc { return c.subscriptionsPage }, adminOfEveryProject},
	{http.MethodGet, "/subscriptions/new", apitoken.Admin, func(c *Console) handlerFunc { return c.subscriptionNewPage }, adminOfEveryProject},
	{http.MethodPost, "/subscriptions/new", apitoken.Admin, func(c *Console) handlerFunc { return c.subscriptionCreate }, adminOfEveryProject},
	{http.MethodGet, "/subscriptions/edit", apitoken.Admin, func(c *Console) handlerFunc { return c.subscriptionEditPage }, adminOfEveryProject},
	{http.MethodPost, "/subscriptions/edit", apitoken.Admin, func(c *Console) handlerFunc { return c.subscriptionUpdate }, adminOfEveryProject},
	{http.MethodGet, "/subscriptions/delete", apitoken.Admin, func(c *Console) handlerFunc { return c.subscriptionDeletePage }, adminOfEveryProject},
	{http.MethodPost, "/subscriptions/delete", apitoken.Admin, func(c *Console) handlerFunc { return c.subscriptionDelete }, adminOfEveryProject},
	{http.MethodPost, "/subscriptions/pull", apitoken.Admin, func(c *Console) handlerFunc { return c.subscriptionPull }, adminOfEveryProject},
	{http.MethodGet, "/dependencies", apitoken.Admin, func(c *Console) handlerFunc { return c.depsPage }, adminOfEveryProject},
	{http.MethodPost, "/dependencies/add", apitoken.Admin, func(c *Console) handlerFunc { return c.depsAdd }, adminOfEveryProject},
	{http.MethodPost, "/dependencies/install", apitoken.Admin, func(c *Console) handlerFunc { return c.depsInstall }, adminOfEveryProject},
	{http.MethodPost, "/dependencies/remove", apitoken.Admin, func(c *Console) handlerFunc { return c.depsRemove }, adminOfEveryProject},
	{http.MethodPost, "/dependencies/mirror", apitoken.Admin, func(c *Console) handlerFunc { return c.depsMirror }, adminOfEveryProject},
	{http.MethodGet, "/backup", apitoken.Admin, func(c *Console) handlerFunc { return c.backupPage }, adminOfEveryProject},
	{http.MethodPost, "/backup/download", apitoken.Admin, func(c *Console) handlerFunc { return c.backupDownload }, adminOfEveryProject},
}

// session is one signed-in browser, of a token or of a user account. A
// token's session keeps the token's digest, not the token; a user's keeps
// the account's id and the stamp of the password it signed in with. Either
// is looked up again on every request, so a revoked or expired token, or a
// disabled or deleted user or one given a new password, ends its sessions
// at once.
type session struct {
	id, csrf  string
	digest    []byte
	userID    string
	stamp     string
	name      string
	scope     apitoken.Scope
	expiresMs int64
	// seenMs is the last use of a session kept in this process alone
	// (Config.Sessions nil); a stored one's is the store's.
	seenMs int64
	// owner is principal(), and used and owned its places in the session
	// table's lists (sessions.go).
	owner       string
	used, owned *list.Element
	// flashes are what this session's forms did, for the pages their
	// redirects show (flash.go).
	flashes flashBox
}

// Console is the console's HTTP handler.
type Console struct {
	cfg  Config
	mux  *http.ServeMux
	tmpl map[string]*template.Template

	sessions *sessionTable
	throttle *throttle
	// authLog writes the sign-in, sign-out and failure lines.
	authLog *authlog.Log
	slots   *checkSlots
	verify  func(hash, password string, found bool) bool
	// crossOrigin refuses a signed-out form posted from a page of another
	// origin (signinform.go).
	crossOrigin *http.CrossOriginProtection
	// setupThrottle counts wrong setup codes (setup.go).
	setupThrottle *setupThrottle
	// liveLogs counts each session's open live logs (livelogslots.go).
	liveLogs *liveLogSlots
	// limits bound each session's requests a second (sessionrate.go).
	limits *sessionLimits
}

// New returns the console handler.
func New(cfg Config) *Console {
	if cfg.NowMs == nil {
		cfg.NowMs = func() int64 { return time.Now().UnixMilli() }
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.SessionIdle <= 0 {
		cfg.SessionIdle = DefaultSessionIdle
	}
	if cfg.RequestTimeout <= 0 || cfg.RequestTimeout > DefaultRequestTimeout {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Uses == nil {
		cfg.Uses = apitoken.NewUses(cfg.Tokens)
	}
	if cfg.Binary == "" {
		cfg.Binary = "ql"
	}
	c := &Console{cfg: cfg, mux: http.NewServeMux(), tmpl: parseTemplates(cfg.Binary, cfg.DatabaseFlags), sessions: newSessionTable(maxSessions, maxSessionsPerPrincipal),
		throttle: newThrottle(func() time.Time { return time.UnixMilli(cfg.NowMs()) }), slots: defaultCheckSlots(), verify: verifyPassword, setupThrottle: newSetupThrottle(), liveLogs: newLiveLogSlots(maxLiveLogs), limits: newSessionLimits(),
		crossOrigin: newCrossOrigin(cfg.PublicURL), authLog: authlog.New(cfg.Log, func() time.Time { return time.UnixMilli(cfg.NowMs()) })}
	byPattern := map[string]map[string]http.HandlerFunc{}
	var order []string
	for _, rt := range routes {
		if byPattern[rt.pattern] == nil {
			byPattern[rt.pattern] = map[string]http.HandlerFunc{}
			order = append(order, rt.pattern)
		}
		byPattern[rt.pattern][rt.method] = c.guard(rt)
	}
	for _, p := range order {
		methods := byPattern[p]
		allow := slices.Sorted(maps.Keys(methods))
		c.mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			m := r.Method
			if m == http.MethodHead {
				m = http.MethodGet
			}
			if h, ok := methods[m]; ok {
				h(w, r)
				return
			}
			w.Header().Set("Allow", strings.Join(allow, ", "))
			c.failWith(w, r, c.sessionIfAny(r), http.StatusMethodNotAllowed, fmt.Sprintf(tr(lang(r), "err.method"), r.Method, strings.Join(allow, ", ")))
		})
	}
	// Any other path is a page that does not exist: signed out, it sends
	// the browser to sign in as every page does (so it tells no stranger
	// which paths exist); signed in, it is the console's 404 page.
	c.mux.HandleFunc("/", c.guard(route{pattern: "/", scope: apitoken.Read, handler: func(c *Console) handlerFunc { return c.notFound }}))
	return c
}

// Patterns lists the route table's method and pattern pairs with the scope
// each needs ("" for none), for tests that walk it.
func Patterns() [][3]string {
	out := make([][3]string, 0, len(routes))
	for _, rt := range routes {
		out = append(out, [3]string{rt.method, rt.pattern, string(rt.scope)})
	}
	return out
}

// ServeHTTP sets the security headers before the mux sees the request, so
// every answer has them; a path the mux would redirect (cleaned, or a
// subtree's root without its slash) is the 404 page, never a redirect.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setHeaders(w)
	if httpserve.MuxRedirects(c.mux, r) {
		c.failWith(w, r, nil, http.StatusNotFound, tr(lang(r), "err.nopage"))
		return
	}
	c.mux.ServeHTTP(w, r)
}

func (c *Console) notFound(w http.ResponseWriter, r *http.Request, s *session) {
	c.failWith(w, r, s, http.StatusNotFound, tr(lang(r), "err.nopage"))
}

// setHeaders are the security headers of every console answer: no script
// but the console's own file, no framing, no sniffing, no caching.
func setHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// guard wraps a route with the session, scope and CSRF checks.
func (c *Console) guard(rt route) http.HandlerFunc {
	h := rt.handler(c)
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ctx, cancel := context.WithTimeout(r.Context(), c.cfg.RequestTimeout)
		defer cancel()
		// A stream's reads are bounded one by one (logStream): of it, only
		// the check of its session has this request's time.
		checked := r.WithContext(ctx)
		if !streams(rt) {
			// The request as it came: whether its client went away.
			defer httpserve.NoteOutOfTime(ctx, c.cfg.Log, CodeRequestOutOfTime, r, start, c.cfg.RequestTimeout)
			r = checked
		}
		if rt.scope == signedOut {
			h(w, r, nil)
			return
		}
		// The rate is the session's, keyed by its cookie, and checked
		// before the session is looked up: a request refused costs no
		// read of the store.
		if ck, err := r.Cookie(c.sessionCookieName()); err == nil && !c.limits.allow(c.cfg.NowMs(), ck.Value) {
			c.overRate(w, r, ck.Value, rt)
			return
		}
		s, b, err := c.session(checked)
		l := lang(r)
		if errors.Is(err, errSessionIdle) {
			http.SetCookie(w, c.cookie(c.sessionCookieName(), "", "/", -1))
			if r.Method == http.MethodGet {
				http.Redirect(w, r, signinFor(r.URL.RequestURI(), r.URL.Query().Get("lang"), true), http.StatusSeeOther)
				return
			}
			c.failWith(w, r, nil, http.StatusUnauthorized, tr(l, "err.idle"))
			return
		}
		if err != nil {
			c.cfg.Log.Warn("console: checking a session", "code", CodeSessionCheckFailed, "err", err)
			c.failWith(w, r, nil, http.StatusServiceUnavailable, tr(l, "err.sessioncheck"))
			return
		}
		if s == nil {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, signinFor(r.URL.RequestURI(), r.URL.Query().Get("lang"), false), http.StatusSeeOther)
				return
			}
			c.failWith(w, r, nil, http.StatusUnauthorized, tr(l, "err.signedout"))
			return
		}
		if !s.scope.Allows(rt.scope) {
			c.failWith(w, r, s, http.StatusForbidden, notAllowed(l, s, rt.scope))
			return
		}
		// Console forms are a few short fields, but for a definitions file,
		// a secret's value, a batch's trigger or Run ids, a script's text
		// and an upload's files.
		limit := int64(maxForm)
		switch {
		case rt.pattern == "/scripts/edit" || rt.pattern == "/scripts/new":
			limit = maxScriptForm
		case rt.pattern == "/scripts/upload":
			limit = maxUploadForm
		case strings.HasPrefix(rt.pattern, "/definitions/qinglong"):
			limit = maxPanelForm
		case strings.HasPrefix(rt.pattern, "/definitions"):
			limit = maxDefinitions
		case rt.pattern == "/secrets":
			limit = maxSecretForm
		case rt.pattern == "/triggers/batch" || rt.pattern == "/runs/cancel":
			limit = maxBatchForm
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		if r.Method == http.MethodPost {
			big := tooLarge(r)
			if form := r.MultipartForm; form != nil {
				// An upload's files past the form's memory are kept in
				// temporary files, which the server removes only for the
				// request it handed in, not for the copies made on the
				// way here.
				defer form.RemoveAll() //nolint:errcheck // nothing to do about a file that will not go
			}
			if big {
				c.failWith(w, r, s, http.StatusRequestEntityTooLarge, fmt.Sprintf(tr(l, "err.toolarge"), limit>>10))
				return
			}
			if !sameSecret(r.PostFormValue("csrf"), s.csrf) {
				c.failWith(w, r, s, http.StatusForbidden, tr(l, "err.csrf"))
				return
			}
		}
		// A user at the two-step wall may only set it up, read the
		// account page and sign out (twostep_wall.go).
		r, walled := c.walled(checked.Context(), w, r, s, rt)
		if walled {
			return
		}
		// A user bound to projects: its listings keep its projects' rows,
		// and an object of another project is refused before the handler
		// reads or does anything, the look-up within the request's time.
		r = r.WithContext(withBound(r.Context(), b))
		if err := c.routeProject(withBound(checked.Context(), b), rt.projects, r); err != nil {
			c.fail(w, r, s, err)
			return
		}
		if writes(rt) {
			// Held open until the form's write is done: the hold waits for
			// it, so no write admitted before the hold lands after it began.
			admit := hold.Admit
			if undated(rt) {
				admit = hold.AdmitUndated
			}
			done, err := admit(c.cfg.Writes)
			if err != nil {
				c.fail(w, r, s, err)
				return
			}
			defer done()
		}
		r, shown := c.takeFlash(w, r, s)
		if shown {
			return
		}
		h(w, r, s)
	}
}

// writes reports whether a signed-in route writes to the store: every form
// but the previews, which only read.
func writes(rt route) bool {
	return rt.method == http.MethodPost && !strings.HasSuffix(rt.pattern, "/preview") && rt.pattern != backupDownloadPattern
}

// backupDownloadPattern is the download of a backup archive: a form, so
// that no page of another site can start one, which streams (it lasts as
// long as the archive takes to send) and asks the write hold itself, at
// its start and for its audit record (backupDownload).
const backupDownloadPattern = "/backup/download"

// undated reports whether a route's write takes no time from the
// server's clock: a cancel, which the store dates no earlier than the
// newest time the database recorded, so a person can stop a Run while the
// clock reads behind the database (hold.Gate.AdmitUndated).
func undated(rt route) bool {
	return rt.pattern == "/runs/{id}/cancel" || rt.pattern == "/runs/cancel"
}

// streams reports whether a route answers for as long as what it sends
// lasts (a run's live log, a log's download), beyond any request's time
// limit: it bounds each of its reads and moves the connection's write
// deadline on itself as it sends.
func streams(rt route) bool {
	return rt.pattern == "/runs/{id}/log" || rt.pattern == "/runs/{id}/download" || rt.pattern == backupDownloadPattern
}

// tooLarge parses the request's form and reports whether its body went
// past the route's limit (any other parse error leaves the fields empty,
// which the handler refuses in its own words). The whole capped body is
// kept in memory, as PostFormValue would.
func tooLarge(r *http.Request) bool {
	var big *http.MaxBytesError
	// ParseForm first: ParseMultipartForm drops its error on a body that
	// is not multipart.
	if err := r.ParseForm(); errors.As(err, &big) {
		return true
	}
	return errors.As(r.ParseMultipartForm(maxDefinitions), &big)
}

func sameSecret(got, want string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

func randomID() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

// session returns the request's live session, nil when there is none or
// its token or user no longer allows it (then it is ended). An error is
// the store's, which decides nothing about the session: it is kept.
// sessionIfAny is the request's session for a page that refuses whoever
// asks (a method an address does not take): signed in, the page keeps its
// navigation; a session that cannot be checked within the request's time
// shows the page without it, as signed out.
func (c *Console) sessionIfAny(r *http.Request) *session {
	ctx, cancel := context.WithTimeout(r.Context(), c.cfg.RequestTimeout)
	defer cancel()
	s, _, err := c.session(r.WithContext(ctx))
	if err != nil {
		return nil
	}
	return s
}

// session is the request's session, nil when there is none or it is no
// longer allowed, and the projects its user is bound to now; errSessionIdle
// when it was ended just now for going unused.
func (c *Console) session(r *http.Request) (*session, bound, error) {
	return c.sessionOf(r, false)
}

// sessionOf is session; following, it is a live log's check
// (stillFollowed): a use of the session that is due but could not be
// recorded, within followSeenWithin, is an error too (session only warns
// of it).
func (c *Console) sessionOf(r *http.Request, following bool) (*session, bound, error) {
	ck, err := r.Cookie(c.sessionCookieName())
	if err != nil {
		return nil, bound{}, nil
	}
	now := c.cfg.NowMs()
	var s *session
	if c.cfg.Sessions != nil {
		if s, err = c.storedSession(r.Context(), ck.Value, following); err != nil {
			return nil, bound{}, err
		}
	} else if held, idle := c.sessions.get(ck.Value, now, c.cfg.SessionIdle.Milliseconds()); idle {
		return nil, bound{}, errSessionIdle
	} else {
		s = held
	}
	if s == nil {
		return nil, bound{}, nil
	}
	valid, b, err := c.stillValid(r.Context(), s, now)
	if err != nil {
		return nil, bound{}, err
	}
	if !valid {
		if err := c.end(r.Context(), s.id); err != nil {
			// The session stays refused: every request checks it again.
			c.cfg.Log.Warn("console: ending a session no longer allowed", "code", CodeSessionStoreFailed, "err", err)
		}
		return nil, bound{}, nil
	}
	return s, b, nil
}

// stillValid looks a session's token or user up again; a user's role may
// only narrow what the session was given at sign-in, and its password must
// be the one the session signed in with. A user's projects are read with
// it, so a new binding holds from the next request on. A token or user
// that is not found is gone; any other error is returned, deciding
// nothing.
func (c *Console) stillValid(ctx context.Context, s *session, now int64) (bool, bound, error) {
	if s.userID != "" {
		if c.cfg.Users == nil {
			return false, bound{}, nil
		}
		u, err := c.cfg.Users.UserByID(ctx, s.userID)
		if qlerror.CodeOf(err) == qlerror.NotFound {
			return false, bound{}, nil
		}
		if err != nil {
			return false, bound{}, err
		}
		valid := u.State() == account.StateActive && u.Role.Scope().Allows(s.scope) && u.PasswordStamp == s.stamp
		return valid, bound{user: u.Name, projects: u.Projects}, nil
	}
	t, err := c.cfg.Tokens.TokenByDigest(ctx, s.digest)
	if qlerror.CodeOf(err) == qlerror.NotFound {
		return false, bound{}, nil
	}
	if err != nil {
		return false, bound{}, err
	}
	if t.StateAt(now) != apitoken.StateActive {
		return false, bound{}, nil
	}
	c.cfg.Uses.Record(ctx, t.ID, now)
	return true, bound{}, nil
}

// start records a new session (of a token or a user) and sets its cookie.
func (c *Console) start(ctx context.Context, w http.ResponseWriter, s *session) error {
	s.seenMs = c.cfg.NowMs()
	s.id, s.expiresMs = randomID(), s.seenMs+c.cfg.SessionTTL.Milliseconds()
	s.csrf = sessionCSRF(s.id)
	if err := c.store(ctx, s); err != nil {
		return err
	}
	c.sessions.add(s)
	http.SetCookie(w, c.cookie(c.sessionCookieName(), s.id, "/", int(c.cfg.SessionTTL.Seconds())))
	return nil
}

// sessionCookieName is the session cookie's name: with Secure, the
// __Host- prefix, which a browser takes only from a secure origin, with
// Path=/ and without a Domain, so no other host of the domain (a
// neighbouring subdomain) nor a plain-HTTP page can set or shadow the
// console's session. A session cookie of the other name is not read: a
// browser signed in before the prefix was used signs in once more.
func (c *Console) sessionCookieName() string {
	if c.cfg.Secure {
		return hostPrefix + sessionCookie
	}
	return sessionCookie
}

// hostPrefix is the cookie name prefix browsers keep for cookies set by a
// secure origin, with Path=/ and without a Domain.
const hostPrefix = "__Host-"

// PublicTLS reports whether the console's address as people reach it
// (--console-url) is https: the browser then talks TLS to a proxy even
// when this server listens on plain HTTP behind it, and the session cookie
// is made Secure.
func PublicTLS(consoleURL string) bool {
	u, err := url.Parse(consoleURL)
	return err == nil && strings.EqualFold(u.Scheme, "https")
}

// cookie is a console cookie: HttpOnly, SameSite=Strict, and Secure when
// the server serves TLS or its public address is https. Otherwise the
// server listens on loopback only (httpapi refuses plain HTTP elsewhere),
// where a Secure cookie would never come back.
func (c *Console) cookie(name, value, path string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: path, MaxAge: maxAge, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: c.cfg.Secure} //nolint:gosec // G124: Secure follows TLS, see above
}

// actor is the audit trail's "who, from where" of a console action:
// console:user:NAME@ADDRESS or console:token:NAME@ADDRESS.
func (s *session) actor(r *http.Request) string {
	kind := "token:"
	if s.userID != "" {
		kind = "user:"
	}
	a := "console:" + kind + s.name + "@" + remoteHost(r)
	if len(a) > 128 {
		a = a[:128]
	}
	return a
}

// setupActor is the audit trail's "who" of the first owner's creation,
// which no session makes yet: the setup code's holder, by address.
func setupActor(r *http.Request) string { return "console:setup@" + remoteHost(r) }

func remoteHost(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}

// publicAssets are the files /assets/ serves without a session: the
// stylesheet, the script and the icon every page names (without it a
// browser asks for /favicon.ico, which is no page, and logs the 404 as an
// error). The page templates beside them in the embedded directory are
// not served, nor is any listing.
var publicAssets = map[string]bool{"app.css": true, "app.js": true, "icon.svg": true}

func serveAsset(w http.ResponseWriter, r *http.Request, _ *session) {
	if !publicAssets[strings.TrimPrefix(r.URL.Path, "/assets/")] {
		http.NotFound(w, r)
		return
	}
	sub, _ := fs.Sub(assets, "assets") // the directory is embedded above
	w.Header().Set("Cache-Control", "public, max-age=3600")
	http.StripPrefix("/assets/", http.FileServerFS(sub)).ServeHTTP(w, r)
}

// signinPage shows the sign-in form with its double-submit CSRF value.
func (c *Console) signinPage(w http.ResponseWriter, r *http.Request, _ *session) {
	c.renderSignin(w, r, "", http.StatusOK)
}

// renderSignin shows the sign-in form with msg, keeping the user name a
// failed sign-in was tried with (never the password or token).
func (c *Console) renderSignin(w http.ResponseWriter, r *http.Request, msg string, status int) {
	// A browser's value is kept: another render of this page for the
	// same browser (a second tab, or a request it made on its own, for its
	// icon, and was sent here to sign in) must not make the form being
	// filled in stale.
	v, err := c.formValue(r, signinCookie)
	if err != nil || v == "" {
		v = randomID()
		http.SetCookie(w, c.formCookie(signinCookie, v, "/signin"))
	}
	user := ""
	if r.Method == http.MethodPost {
		user = strings.TrimSpace(r.PostFormValue("user"))
	}
	next := r.URL.Query().Get("next")
	if r.Method == http.MethodPost {
		next = r.PostFormValue("next")
	}
	// SignedOut: the page a sign-out sends the browser to says it was;
	// Idle: the page a session ended for going unused sends it to says so.
	signedOut := r.Method != http.MethodPost && r.URL.Query().Has(signedOutParam)
	idle := r.Method != http.MethodPost && r.URL.Query().Has(idleParam)
	c.render(w, r, status, "signin", nil, map[string]any{"CSRF": v, "Error": msg, "Users": c.cfg.Users != nil, "User": user, "Next": localPage(next),
		"SignedOut": signedOut, "Idle": idle, "IdleMinutes": int(c.cfg.SessionIdle.Minutes()), "AdminCredentials": c.cfg.AdminCredentials, "Setup": c.setupLink(r.Context())})
}

// signin checks a user's password or a token, throttled per address (and
// for a user name, per address and under a loose ceiling per name), and
// starts a session.
func (c *Console) signin(w http.ResponseWriter, r *http.Request, _ *session) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	// Before the CSRF check: a cut body has lost its fields, and the
	// answer must say what was wrong with it.
	if tooLarge(r) {
		c.renderSignin(w, r, fmt.Sprintf(tr(lang(r), "err.toolarge"), maxForm>>10), http.StatusRequestEntityTooLarge)
		return
	}
	v, err := c.formValue(r, signinCookie)
	if err != nil && c.cameOverPlainHTTP(r) {
		c.usePublicAddress(w, r, "/signin")
		return
	}
	if c.crossOrigin.Check(r) != nil {
		c.renderSignin(w, r, tr(lang(r), "err.crossform"), http.StatusForbidden)
		return
	}
	if err != nil || !sameSecret(r.PostFormValue("csrf"), v) {
		c.renderSignin(w, r, tr(lang(r), "err.signincsrf"), http.StatusForbidden)
		return
	}
	l := lang(r)
	done, err := hold.Admit(c.cfg.Writes)
	if err != nil {
		retryAfter(w, err)
		c.renderSignin(w, r, c.formError(l, err), statusOf(err))
		return
	}
	defer done()
	addr := remoteHost(r)
	name := strings.TrimSpace(r.PostFormValue("user"))
	if name == "" {
		c.signinToken(w, r, addr)
		return
	}
	if !c.throttle.allowed(addr, name) {
		c.authLog.Throttled(authlog.Event{Surface: authlog.SurfaceConsole, Addr: addr, Reason: authlog.ReasonThrottled})
		w.Header().Set("Retry-After", retryThrottled)
		c.renderSignin(w, r, tr(l, "err.throttled"), http.StatusTooManyRequests)
		return
	}
	c.signinUser(w, r, name, addr)
}

func (c *Console) signout(w http.ResponseWriter, r *http.Request, s *session) {
	if err := c.end(r.Context(), s.id); err != nil {
		c.cfg.Log.Warn("console: ending a session at sign-out", "code", CodeSessionStoreFailed, "err", err)
		c.failWith(w, r, s, http.StatusServiceUnavailable, tr(lang(r), "err.signoutstore"))
		return
	}
	c.authLog.SignedOut(authlog.Event{Surface: authlog.SurfaceConsole, Addr: remoteHost(r), Name: s.name})
	http.SetCookie(w, c.cookie(c.sessionCookieName(), "", "/", -1))
	http.Redirect(w, r, "/signin?"+signedOutParam, http.StatusSeeOther)
}

// signedOutParam marks the sign-in page a sign-out sends the browser to,
// which says the session ended: without it, the page would look as if
// nothing had happened.
const signedOutParam = "signedout"

// idleParam marks the sign-in page a session ended for going unused sends
// the browser to, which says why it must sign in again.
const idleParam = "idle"

// errSessionIdle is a session ended for going unused longer than
// Config.SessionIdle.
var errSessionIdle = errors.New("console session ended for inactivity")
