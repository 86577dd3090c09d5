package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/netaddr"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/view"
)

// EnvOnly are the variables a command reads with no flag beside them: the
// API token, a secret that never belongs on a command line.
var EnvOnly = []string{"QL_TOKEN"}

// remoteTimeout bounds one API request of a command talking to a server.
const remoteTimeout = 30 * time.Second

// maxRemoteBody bounds what a command reads of one API response.
const maxRemoteBody = 32 << 20

// addServerFlag lets a command ask a server's API instead of opening the
// database; the token comes from $QL_TOKEN only, never the command line,
// where every user of the host can read it. Every command whose action
// the API serves takes it (remoteScopes lists them).
func addServerFlag(c *cobra.Command, f *dbFlags) {
	fs := c.Flags()
	fs.StringVar(&f.server, "api-url", "", "ask this server's API (https://host:port) instead of the database; the API token is read from $QL_TOKEN")
	BindEnv(fs, "api-url")
}

// remoteScopes is the token scope each command given --api-url needs from
// the API, by its path below the root: the scope of the most demanding
// route it asks (a trigger named by name is found through the read route
// first). The hint for a missing token names it, or the token it makes
// is refused next; a command that takes --api-url without an entry here
// fails TestEveryCommandWithAPIURLHasAScope.
var remoteScopes = map[string]apitoken.Scope{
	"apply":               apitoken.Admin,
	"export":              apitoken.Admin,
	"projects list":       apitoken.Read,
	"projects show":       apitoken.Read,
	"runs list":           apitoken.Read,
	"runs show":           apitoken.Read,
	"runs logs":           apitoken.Read,
	"runs cancel":         apitoken.Operate,
	"runs rerun":          apitoken.Operate,
	"triggers list":       apitoken.Read,
	"triggers show":       apitoken.Read,
	"triggers pause":      apitoken.Operate,
	"projects pause":      apitoken.Operate,
	"projects resume":     apitoken.Operate,
	"triggers resume":     apitoken.Operate,
	"triggers run":        apitoken.Operate,
	"triggers backfill":   apitoken.Operate,
	"triggers enable":     apitoken.Admin,
	"triggers disable":    apitoken.Admin,
	"secrets list":        apitoken.Admin,
	"secrets set":         apitoken.Admin,
	"secrets delete":      apitoken.Admin,
	"notifications list":  apitoken.Read,
	"notifications retry": apitoken.Operate,
	"notifications test":  apitoken.Operate,
	"audit list":          apitoken.Admin,
	"backup":              apitoken.Admin,
	"deps list":           apitoken.Admin,
	"deps add":            apitoken.Admin,
	"deps rm":             apitoken.Admin,
	"deps install":        apitoken.Admin,
	"deps mirror":         apitoken.Admin,
}

// remotePath is cmd's path below the root, as remoteScopes keys it.
func remotePath(cmd *cobra.Command) string {
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

// remoteScope is the token scope cmd needs from the API.
func remoteScope(cmd *cobra.Command) apitoken.Scope {
	return remoteScopes[remotePath(cmd)]
}

// apiHelp is the sentence of a command's help on --api-url: what the
// server does, with the token of which scope. path is the command's path
// below the root.
func apiHelp(path string) string {
	if remoteScopes[path] == apitoken.Read {
		return "With --api-url URL it asks a server's API instead of the database, with a token of scope read\nin $QL_TOKEN."
	}
	return fmt.Sprintf("With --api-url URL a server does it instead, over its API, with a token of scope %s in\n$QL_TOKEN.", remoteScopes[path])
}

// openRemote is the backend of a command given --api-url.
func openRemote(f *dbFlags) (*Backend, error) {
	c, err := remoteClient(f)
	if err != nil {
		return nil, err
	}
	return &Backend{Runs: c, Triggers: c, Pause: c, ProjectPause: c, ProjectPauses: c, Manual: c, CancelRun: c.CancelRun, Notifications: c, TryChannel: c.TryChannel, Audit: c, Dependencies: c, Unattended: c.unattended, api: c, Close: func() {}}, nil
}

// remoteClient is the API client of a command given --api-url.
func remoteClient(f *dbFlags) (*apiClient, error) {
	fs := f.cmd.Flags()
	urlFlag := urlFlagOf(fs)
	if onCommandLine(fs.Lookup("data-dir")) || (urlFlag != nil && onCommandLine(urlFlag)) {
		// Only the flags this binary has: ql-edge has no --database-url.
		database := "--data-dir (the database)"
		if urlFlag != nil {
			database = "--data-dir/--database-url (the database)"
		}
		if !onCommandLine(fs.Lookup("api-url")) {
			// The user gave a database and never wrote --api-url: say where
			// the server came from, or they look for a flag they did not give.
			return nil, Usagef("$QL_API_URL is set, so this command would ask that server's API, and the command line gives %s too: "+
				"unset QL_API_URL to work on the database, or leave out the database flag to ask the server", database)
		}
		return nil, Usagef("give --api-url (a server's API) or %s, not both", database)
	}
	u, err := url.Parse(f.server)
	if err != nil {
		// The parse error quotes the whole URL, a password in it too.
		return nil, Usagef("--api-url is not a URL: give the API's base URL, e.g. https://ql.example.com:8080")
	}
	// The API authenticates by $QL_TOKEN alone, and every hint a command
	// prints repeats --api-url: a password written into it would be
	// echoed into terminals and CI logs. Refused before any message
	// below quotes the URL.
	if u.User != nil {
		u.User = nil
		return nil, Usagef("--api-url carries a user name or password (NAME:PASSWORD@), which the API never reads: it takes its token from $QL_TOKEN; "+
			"give --api-url %s", u.String())
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, Usagef("--api-url %q must be the API's base URL, e.g. https://ql.example.com:8080", f.server)
	}
	// Every route is asked at base + /api/v1/…: a base that ends in it
	// would be asked at /api/v1/api/v1/… and answered "no such endpoint".
	if p := strings.TrimSuffix(u.Path, "/"); strings.HasSuffix(p, "/api/v1") || strings.HasSuffix(p, "/api") {
		base := *u
		base.Path = strings.TrimSuffix(strings.TrimSuffix(p, "/v1"), "/api")
		return nil, Usagef("--api-url %q ends with the API's path: give the server's base URL, which each command adds /api/v1/… to: --api-url %s", f.server, base.String())
	}
	// The token rides in every request: over plain HTTP to another host
	// anyone on the path reads it, as the worker refuses for its credential.
	if u.Scheme == "http" && !netaddr.IsLoopbackHost(u.Hostname()) {
		return nil, Usagef("--api-url %q is plain HTTP to another host, and $QL_TOKEN would cross the network readable by anyone on the path: "+
			"use https:// (the server's --tls-cert), or reach it through a loopback address, e.g. an SSH tunnel (ssh -L 8080:127.0.0.1:8080 HOST, then --api-url http://127.0.0.1:8080)", f.server)
	}
	token, err := Getenv(os.Getenv, "QL_TOKEN")
	if err != nil {
		return nil, err
	}
	token, err = cleanToken(token)
	if err != nil {
		return nil, err
	}
	if token == "" {
		return nil, Usagef("--api-url needs an API token in $QL_TOKEN: create one with `ql tokens create NAME --scope %s` where the server's database is "+
			"(on its host, with its --data-dir), then export QL_TOKEN=qlt_…", remoteScope(f.cmd))
	}
	return &apiClient{base: strings.TrimSuffix(u.String(), "/"), token: token, http: &http.Client{Timeout: remoteTimeout}}, nil
}

// apiClient does over a server's API what the commands given --api-url
// would do on the database: the same interfaces, so a command prints the
// same whichever it was given. The server records the token as who asked,
// so no request sends an actor.
type apiClient struct {
	base, token string
	http        *http.Client
	// header is sent with every request besides the token: an apply's
	// If-Match (`ql apply --if-match`, `ql triggers enable|disable
	// --if-match`).
	header http.Header
	// waits holds, by Run id, why a Run the server just queued for a run
	// now or a re-run waits for a worker, as its answer said (nil: it
	// does not), for the command's note (unattended).
	waits map[string]*run.Waiting
}

// heard keeps why the server said Run id waits.
func (c *apiClient) heard(id string, w *view.Waiting) {
	if id == "" {
		return
	}
	if c.waits == nil {
		c.waits = map[string]*run.Waiting{}
	}
	c.waits[id] = w.RunOf()
}

// unattended is the note of a Run queued over the API: why it waits for a
// worker, from the answer that queued it, as the database path reads it
// from the Run. A Run no answer spoke of (a backfill's) is read from the
// server; whether a replica or server runs is not the API's to say.
func (c *apiClient) unattended(ctx context.Context, id string) (Unattended, error) {
	w, ok := c.waits[id]
	if !ok {
		d, err := c.RunGet(ctx, id)
		if err != nil {
			return Unattended{}, err
		}
		w = d.Waiting
	}
	if !w.ForWantOfAWorker() {
		return Unattended{}, nil
	}
	return Unattended{Worker: w}, nil
}

var (
	_ run.Reader            = (*apiClient)(nil)
	_ schedule.StatusReader = (*apiClient)(nil)
	_ schedule.Pauser       = (*apiClient)(nil)
	_ schedule.Manual       = (*apiClient)(nil)
	_ notify.Manager        = (*apiClient)(nil)
)

func (c *apiClient) get(ctx context.Context, path string, q url.Values, into any) error {
	return c.do(ctx, http.MethodGet, path, q, "", nil, into)
}

// post sends body as JSON to path and decodes the answer into into.
func (c *apiClient) post(ctx context.Context, path string, body, into any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodPost, path, nil, "application/json", bytes.NewReader(b), into)
}

// do sends one request (body of contentType when body is not nil) and
// decodes the answer into into, or returns the API's error with its code.
func (c *apiClient) do(ctx context.Context, method, path string, q url.Values, contentType string, body io.Reader, into any) error {
	_, answer, err := c.send(ctx, method, path, q, contentType, body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(answer, into); err != nil {
		return qlerror.New(qlerror.Unavailable, "the server at %s answered something that is not the QingLong API: %v", c.base, err)
	}
	return nil
}

// send sends one request and returns the headers and body of a 200
// answer, or the API's error with its code. A read the server refuses
// for the token's rate is asked again after the wait it names (a second
// at the API's rate limit), for up to remoteTimeout in all: `runs logs
// -f` asks a few times a second, near the limit, and must not end for it.
func (c *apiClient) send(ctx context.Context, method, path string, q url.Values, contentType string, body io.Reader) (http.Header, []byte, error) {
	target := c.base + path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	var limited time.Duration
	for {
		header, answer, err := c.sendOnce(ctx, method, target, contentType, body)
		wait, retry := retryAfter(header)
		if method != http.MethodGet || qlerror.CodeOf(err) != codeRateLimited || !retry || limited+wait > remoteTimeout {
			return header, answer, err
		}
		limited += wait
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// codeRateLimited is the API's code for a request over its token's rate
// (429).
const codeRateLimited qlerror.Code = "rate_limited"

// maxRateWait is the longest Retry-After a read waits out: the API's
// per-token limit names a second; a longer wait (the minute of an address
// refused for failed authentications) is the error's to tell.
const maxRateWait = 5 * time.Second

// retryAfter is the wait a 429's Retry-After names in seconds (at least
// one, so a read never asks again at once), when it is one a read waits
// out.
func retryAfter(h http.Header) (time.Duration, bool) {
	n, err := strconv.Atoi(h.Get("Retry-After"))
	wait := time.Duration(max(n, 1)) * time.Second
	return wait, err == nil && n >= 0 && wait <= maxRateWait
}

// sendOnce is one request of send.
func (c *apiClient) sendOnce(ctx context.Context, method, target, contentType string, body io.Reader) (http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, nil, err
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if plain, ok := plainHTTPAt(c.base, err); ok {
			return nil, nil, qlerror.Wrap(qlerror.Unavailable, notSent{unwrapURL(err)},
				"the server at %s does not answer HTTPS: if it serves plain HTTP (--insecure-http), give --api-url %s", c.base, plain)
		}
		if neverSent(err) {
			return nil, nil, qlerror.Wrap(qlerror.Unavailable, notSent{unwrapURL(err)}, "cannot reach the server at %s", c.base)
		}
		// The request may have reached the server, which may have acted
		// on it: a write says so (answerLost).
		return nil, nil, qlerror.Wrap(qlerror.Unavailable, unwrapURL(err), "no answer from the server at %s", c.base)
	}
	defer func() { _ = resp.Body.Close() }()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxRemoteBody))
	if err != nil {
		return nil, nil, qlerror.Wrap(qlerror.Unavailable, err, "reading the server's answer")
	}
	if resp.StatusCode != http.StatusOK {
		return resp.Header, nil, c.refusal(resp, answer)
	}
	return resp.Header, answer, nil
}

// refusal is the API's error a non-200 answer carries, with its code,
// reason and params.
func (c *apiClient) refusal(resp *http.Response, answer []byte) error {
	var e struct {
		Error struct {
			Code       qlerror.Code      `json:"code"`
			Message    string            `json:"message"`
			Reason     qlerror.Reason    `json:"reason"`
			Params     map[string]string `json:"params"`
			Errors     []serverFileError `json:"errors"`
			MoreErrors int               `json:"moreErrors"`
		} `json:"error"`
	}
	if json.Unmarshal(answer, &e) != nil || e.Error.Code == "" {
		return qlerror.New(qlerror.Unavailable, "the server at %s answered %s, not the QingLong API; check --api-url", c.base, resp.Status)
	}
	err := qlerror.New(e.Error.Code, "%s%s", serverSaid, e.Error.Message)
	if e.Error.Reason != "" {
		// The refusal's reason, for a command that words it as the
		// database path does (a disabled trigger's enable command).
		err = err.Because(e.Error.Reason)
		err.Params = e.Error.Params
	}
	if len(e.Error.Errors) > 0 {
		return &serverFileErrors{err: err, List: e.Error.Errors, More: e.Error.MoreErrors}
	}
	return err
}

// serverSaid starts the message of every error a server answered.
const serverSaid = "server: "

// serverFileError is one error of a definitions file as the apply API
// places it (its other fields are for clients that act on the entry).
type serverFileError struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// serverFileErrors is the server's error (its code, and its message,
// which says every error with the name the file was sent under) with the
// errors it placed in the definitions file it was sent and the count of
// those it found past them, for a caller that places them in the file as
// the user named it.
type serverFileErrors struct {
	err  *qlerror.Error
	List []serverFileError
	More int
}

func (e *serverFileErrors) Error() string { return e.err.Error() }

func (e *serverFileErrors) Unwrap() error { return e.err }

// unwrapURL drops net/http's "Get URL:" prefix; the message names the
// server itself.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func setIf(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

func (c *apiClient) RunList(ctx context.Context, p run.ListParams) ([]run.Run, string, error) {
	q := url.Values{}
	setIf(q, "project", p.ProjectID)
	setIf(q, "trigger", p.TriggerID)
	setIf(q, "state", string(p.State))
	setIf(q, "after", p.After)
	setIf(q, "worker", p.Worker)
	// Sent in UTC to the millisecond: the server reads back the instant
	// the command line gave.
	for k, ms := range map[string]int64{"from": p.FromMs, "to": p.ToMs} {
		if ms != 0 {
			q.Set(k, time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00"))
		}
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	var page view.RunList
	if err := c.get(ctx, "/api/v1/runs", q, &page); err != nil {
		return nil, "", err
	}
	out := make([]run.Run, 0, len(page.Runs))
	for _, r := range page.Runs {
		out = append(out, runOf(r))
	}
	return out, page.Next, nil
}

func (c *apiClient) RunGet(ctx context.Context, id string) (run.Detail, error) {
	var d view.RunDetail
	if err := c.get(ctx, "/api/v1/runs/"+url.PathEscape(id), nil, &d); err != nil {
		return run.Detail{}, err
	}
	out := run.Detail{Run: runOf(d.Run), Waiting: d.Waiting.RunOf(), RerunAs: d.RerunAs}
	for _, a := range d.Attempts {
		out.Attempts = append(out.Attempts, run.Attempt{ID: a.ID, RunID: d.Run.ID, Number: a.Number, Executor: a.Executor, State: a.State,
			ExitCode: a.ExitCode, ErrorCode: a.ErrorCode, ErrorMessage: a.ErrorMessage, WorkerName: a.Worker, CreatedAtMs: a.CreatedAtMs,
			StartedAtMs: a.StartedAtMs, FinishedAtMs: a.FinishedAtMs, LogBytes: a.LogBytes, LogTruncated: a.LogTruncated})
	}
	for _, e := range d.Events {
		out.Events = append(out.Events, run.Event{RunID: d.Run.ID, Seq: e.Seq, Name: e.Name, Payload: string(e.Payload), CreatedAtMs: e.CreatedAtMs})
	}
	return out, nil
}

// TriggerList is a page of triggers without their last Runs: what finding
// a trigger or project by name reads, which asks the server for no Run
// (?lastRun=false) rather than one index probe per trigger it discards.
func (c *apiClient) TriggerList(ctx context.Context, p schedule.TriggerListParams) ([]schedule.TriggerStatus, string, error) {
	page, err := c.triggerPage(ctx, p, false)
	if err != nil {
		return nil, "", err
	}
	out := make([]schedule.TriggerStatus, 0, len(page.Triggers))
	for _, t := range page.Triggers {
		out = append(out, statusOf(t))
	}
	return out, page.Next, nil
}

// TriggerPage is a page of triggers as GET /api/v1/triggers shapes it,
// each with its last Run: what `triggers list` prints from the database.
func (c *apiClient) TriggerPage(ctx context.Context, p schedule.TriggerListParams) (view.TriggerList, error) {
	return c.triggerPage(ctx, p, true)
}

func (c *apiClient) triggerPage(ctx context.Context, p schedule.TriggerListParams, lastRun bool) (view.TriggerList, error) {
	q := url.Values{}
	if !lastRun {
		q.Set("lastRun", "false")
	}
	setIf(q, "project", p.ProjectID)
	setIf(q, "after", p.After)
	setIf(q, "search", p.Search)
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	var page view.TriggerList
	err := c.get(ctx, "/api/v1/triggers", q, &page)
	if err != nil && !lastRun && refusedLastRunParam(err) {
		// A server of an earlier build knows no lastRun and refuses the
		// parameter; it reads no last Runs anyway, so the page it gives
		// without the parameter is the one asked for.
		q.Del("lastRun")
		page = view.TriggerList{}
		err = c.get(ctx, "/api/v1/triggers", q, &page)
	}
	return page, err
}

// refusedLastRunParam tells the refusal of GET /api/v1/triggers's lastRun
// by a server of an earlier build, which takes only after, limit and
// project and says so in these words (it gives the refusal no reason).
func refusedLastRunParam(err error) bool {
	return qlerror.CodeOf(err) == qlerror.Invalid && strings.Contains(err.Error(), `query parameter "lastRun" is not supported`)
}

// statusOf is the trigger status a view shows (the API's JSON back to the
// model): every field view.NewTriggerList shapes from it, so a command
// that finds a trigger through the listing reads it as on the database.
func statusOf(t view.Trigger) schedule.TriggerStatus {
	cron := trigger.Cron{Expression: t.Cron.Expression, Timezone: t.Cron.Timezone, MisfirePolicy: trigger.MisfirePolicy(t.Cron.MisfirePolicy),
		JitterMs: t.Cron.JitterMs, StartAtMs: t.Cron.StartAtMs, EndAtMs: t.Cron.EndAtMs, Overlap: trigger.OverlapPolicy(t.Cron.Overlap)}
	if t.Cron.CatchUpWindowMs != nil {
		cron.CatchUpWindowMs, cron.HasCatchUpWindow = *t.Cron.CatchUpWindowMs, true
	}
	return schedule.TriggerStatus{ProjectID: t.ProjectID, ProjectName: t.ProjectName, TriggerID: t.TriggerID, Name: t.Name,
		Title: t.Title, TaskTitle: t.TaskTitle, ProjectTitle: t.ProjectTitle, Revision: t.Revision, Enabled: t.Enabled, Paused: t.Paused, PausedWithProject: t.PausedWithProject, Cron: cron, TaskID: t.TaskID, TaskName: t.TaskName, TaskRevision: t.TaskRevision,
		NextFireAtMs: t.NextFireAtMs, NextDueAtMs: t.NextDueAtMs, Ended: t.Ended, Archived: t.Archived, LastScheduledAtMs: t.LastScheduledAtMs,
		StateVersion: t.StateVersion, ClaimOwner: t.ClaimOwner, ClaimExpiresAtMs: t.ClaimExpiresAtMs}
}

// TriggerView is one trigger as GET /api/v1/triggers/{id} shapes it, with
// its last runs and newest ledger entries: what `triggers show` prints
// from the database, built by the server with its clock.
func (c *apiClient) TriggerView(ctx context.Context, id string, runs, ledger int) (view.TriggerDetail, error) {
	q := url.Values{"runs": {strconv.Itoa(runs)}, "ledger": {strconv.Itoa(ledger)}}
	var d view.TriggerDetail
	err := c.get(ctx, "/api/v1/triggers/"+url.PathEscape(id), q, &d)
	return d, err
}

// pauseCall is the route's last part and the body of a pause or a resume,
// of a trigger or a project alike, each with its note.
func pauseCall(pause bool, note string) (path string, body any) {
	path = "/resume"
	if pause {
		path = "/pause"
	}
	return path, struct {
		Note string `json:"note,omitempty"`
	}{note}
}

// TriggerPause pauses or resumes a trigger, with the note.
func (c *apiClient) TriggerPause(ctx context.Context, r schedule.PauseRequest) (schedule.PauseResult, error) {
	path, body := pauseCall(r.Pause, r.Note)
	var a view.TriggerPause
	if err := c.post(ctx, "/api/v1/triggers/"+url.PathEscape(r.TriggerID)+path, body, &a); err != nil {
		return schedule.PauseResult{}, err
	}
	return a.Result(), nil
}

// ProjectPause pauses or resumes a project, with the note.
func (c *apiClient) ProjectPause(ctx context.Context, r schedule.ProjectPauseRequest) (schedule.ProjectPauseResult, error) {
	path, body := pauseCall(r.Pause, r.Note)
	var a view.ProjectPause
	if err := c.post(ctx, "/api/v1/projects/"+url.PathEscape(r.Project)+path, body, &a); err != nil {
		return schedule.ProjectPauseResult{}, err
	}
	return a.Result(), nil
}

// TriggerSetEnabled publishes trigger id's revision again with enabled
// set as asked (the API names the trigger by id, the catalog by project
// and name).
func (c *apiClient) TriggerSetEnabled(ctx context.Context, id string, enabled bool) (catalog.EnableResult, error) {
	path := "/disable"
	if enabled {
		path = "/enable"
	}
	var a struct {
		Changed  bool  `json:"changed"`
		Enabled  bool  `json:"enabled"`
		Revision int64 `json:"revision"`
		AtMs     int64 `json:"atMs"`
	}
	if err := c.post(ctx, "/api/v1/triggers/"+url.PathEscape(id)+path, struct{}{}, &a); err != nil {
		return catalog.EnableResult{}, err
	}
	return catalog.EnableResult{Changed: a.Changed, Enabled: a.Enabled, Revision: a.Revision, CreatedAtMs: a.AtMs}, nil
}

// TriggerRunNow admits one manual Run of a trigger.
func (c *apiClient) TriggerRunNow(ctx context.Context, r schedule.RunNowRequest) (schedule.RunNowResult, error) {
	body := struct {
		RequestID string `json:"requestId"`
		Force     bool   `json:"force"`
	}{r.RequestID, r.Force}
	var a runAnswer
	if err := c.post(ctx, "/api/v1/triggers/"+url.PathEscape(r.TriggerID)+"/run", body, &a); err != nil {
		return schedule.RunNowResult{}, err
	}
	c.heard(a.RunID, a.Waits)
	return schedule.RunNowResult{RunID: a.RunID, Created: a.Created, Skipped: schedule.PassReason(a.Skipped), Unfinished: a.Unfinished, Waiting: a.Waiting,
		Cancelled: a.Cancelled}, nil
}

// TriggerBackfill admits (or, for a dry run, counts) a trigger's
// occurrences in a window, one request per call: `triggers backfill`
// cuts a long window into calls as it does on the database.
func (c *apiClient) TriggerBackfill(ctx context.Context, r schedule.BackfillRequest) (schedule.BackfillResult, error) {
	if r.RefuseOverMax {
		// The API cuts a window at max and has no way to refuse it whole.
		return schedule.BackfillResult{}, qlerror.New(qlerror.Invalid, "a backfill refusing a window over its max cannot be asked of the API")
	}
	body := struct {
		FromMs int64 `json:"fromMs"`
		ToMs   int64 `json:"toMs"`
		Max    int   `json:"max"`
		DryRun bool  `json:"dryRun"`
	}{r.FromMs, r.ToMs, r.Max, r.DryRun}
	var a view.Backfill
	if err := c.post(ctx, "/api/v1/triggers/"+url.PathEscape(r.TriggerID)+"/backfill", body, &a); err != nil {
		return schedule.BackfillResult{}, err
	}
	return a.Result(), nil
}

// CancelRun cancels a Run and says what this request did to it.
func (c *apiClient) CancelRun(ctx context.Context, runID, _ string) (run.Run, run.CancelEffect, error) {
	var a struct {
		Run    view.Run `json:"run"`
		Effect string   `json:"effect"`
	}
	if err := c.post(ctx, "/api/v1/runs/"+url.PathEscape(runID)+"/cancel", struct{}{}, &a); err != nil {
		return run.Run{}, run.CancelEffect{}, err
	}
	return runOf(a.Run), view.CancelEffectOf(a.Effect), nil
}

// NotificationsList lists the outbox a page at a time.
func (c *apiClient) NotificationsList(ctx context.Context, lq notify.ListQuery) ([]notify.Message, string, error) {
	q := url.Values{}
	setIf(q, "state", string(lq.State))
	setIf(q, "project", lq.ProjectID)
	setIf(q, "after", lq.After)
	if lq.Limit > 0 {
		q.Set("limit", strconv.Itoa(lq.Limit))
	}
	var page view.NotificationList
	if err := c.get(ctx, "/api/v1/notifications", q, &page); err != nil {
		return nil, "", err
	}
	out := make([]notify.Message, 0, len(page.Notifications))
	for _, n := range page.Notifications {
		out = append(out, messageOf(n))
	}
	return out, page.Next, nil
}

// NotificationRetry makes a dead notification pending again. The server
// records its own actor for it (the API token and address), not actor.
func (c *apiClient) NotificationRetry(ctx context.Context, id, _ string) (notify.Message, error) {
	var a struct {
		Notification view.Notification `json:"notification"`
	}
	if err := c.post(ctx, "/api/v1/notifications/"+url.PathEscape(id)+"/retry", struct{}{}, &a); err != nil {
		return notify.Message{}, err
	}
	return messageOf(a.Notification), nil
}

// messageOf is the outbox row a view shows: every field
// view.NewNotification reads, so it shapes the same view again.
func messageOf(n view.Notification) notify.Message {
	m := notify.Message{ID: n.ID, State: notify.State(n.State), Event: notify.Event(n.Event), RunID: n.RunID,
		Channel: notify.Channel{Name: n.Channel, Kind: notify.Kind(n.ChannelKind)}, Payload: notify.Payload{Project: n.Project, Trigger: n.Trigger, RunState: n.RunState},
		Attempts: n.Attempts, LastError: n.LastError, LastErrorReason: notify.Reason(n.LastErrorReason), CreatedAtMs: n.CreatedAtMs}
	if n.NextAttemptAtMs != nil {
		m.NextAttemptAtMs = *n.NextAttemptAtMs
	}
	if n.DeliveredAtMs != nil {
		m.DeliveredAtMs = *n.DeliveredAtMs
	}
	if n.RetriedAtMs != nil {
		m.RetriedAtMs, m.AttemptsBeforeRetry, m.RetriedBy = *n.RetriedAtMs, n.AttemptsBeforeRetry, n.RetriedBy
	}
	if s := n.RuleScope; s != nil {
		m.Scope = &notify.RuleScope{Project: s.Project, Tasks: s.Tasks, Triggers: s.Triggers}
	}
	return m
}

// rerunBody is POST /api/v1/runs/{id}/rerun's body.
type rerunBody struct {
	RequestID string `json:"requestId"`
}

// runAnswer is what a run now (POST /api/v1/triggers/{id}/run) and a
// rerun (POST /api/v1/runs/{id}/rerun) answer alike.
type runAnswer struct {
	RunID      string        `json:"runId"`
	Created    bool          `json:"created"`
	Skipped    string        `json:"skipped"`
	Unfinished string        `json:"unfinished"`
	Waiting    bool          `json:"waiting"`
	Cancelled  []string      `json:"cancelled"`
	Waits      *view.Waiting `json:"waits"`
}

// RunRerun asks the server to re-run a Run; the server records the token
// as the actor, so r.Actor is not sent.
func (c *apiClient) RunRerun(ctx context.Context, r schedule.RerunRequest) (schedule.RerunResult, error) {
	var a runAnswer
	if err := c.post(ctx, "/api/v1/runs/"+url.PathEscape(r.RunID)+"/rerun", rerunBody{RequestID: r.RequestID}, &a); err != nil {
		return schedule.RerunResult{}, err
	}
	c.heard(a.RunID, a.Waits)
	return schedule.RerunResult{RunID: a.RunID, Created: a.Created, Skipped: schedule.PassReason(a.Skipped), Unfinished: a.Unfinished, Waiting: a.Waiting,
		Cancelled: a.Cancelled}, nil
}

// runOf is the Run a view shows (the API's JSON back to the model).
func runOf(r view.Run) run.Run {
	return run.Run{ID: r.ID, ProjectID: r.ProjectID, ProjectName: r.ProjectName, TaskID: r.TaskID, TaskRevision: r.TaskRevision,
		TriggerID: r.TriggerID, TriggerRevision: r.TriggerRevision, TriggerName: r.TriggerName, TriggerTitle: r.TriggerTitle, TaskName: r.TaskName, ExecutionRevisionID: r.ExecutionRevisionID,
		IdempotencyKey: r.IdempotencyKey, ScheduledForMs: r.ScheduledForMs, DueAtMs: r.DueAtMs, State: r.State, Version: r.Version,
		LastEventSeq: r.LastEventSeq, CreatedAtMs: r.CreatedAtMs, QueuedAtMs: r.QueuedAtMs, UpdatedAtMs: r.UpdatedAtMs, FinishedAtMs: r.FinishedAtMs,
		RanMs: r.RanMs, RanUntilLastHeard: r.RanMsIsLowerBound, RerunOf: r.RerunOf, Origin: r.Origin, ErrorCode: r.ErrorCode, ExitCode: r.ExitCode, WorkerName: r.Worker}
}

// cleanToken is $QL_TOKEN as a request header can carry it. A token read
// from a mounted secret file ends with its newline, which no token holds:
// surrounding white space is dropped. A character a header cannot carry
// is refused, exit 2, rather than sent: the HTTP client would fail as if
// the server were unreachable, the class a script retries for ever.
func cleanToken(raw string) (string, error) {
	token := strings.TrimSpace(raw)
	for _, r := range token {
		if r < 0x21 || r > 0x7e {
			return "", Usagef("$QL_TOKEN holds a character no token has (a space, a control character or a letter outside ASCII): " +
				"set it to the token alone, as `ql tokens create` printed it (qlt_…)")
		}
	}
	return token, nil
}

// plainHTTPAt is base with http:// for https:// when err says the server
// there answered the TLS handshake with something else (net/http's
// ErrSchemeMismatch, or a first record that is no TLS): most often a
// server started with --insecure-http, which a user reaches by http://.
func plainHTTPAt(base string, err error) (string, bool) {
	var header tls.RecordHeaderError
	rest, ok := strings.CutPrefix(base, "https://")
	if !ok || !errors.Is(err, http.ErrSchemeMismatch) && !errors.As(err, &header) {
		return "", false
	}
	return "http://" + rest, true
}
