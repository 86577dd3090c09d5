package httpapi

import (
	"net/http"
	"slices"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// public marks the two probes, the only routes without a token.
const public apitoken.Scope = ""

// undatedWrites are the routes whose write takes no time from the
// server's clock: a cancel, which the store dates no earlier than the
// newest time the database recorded, so a person can stop a Run while the
// clock reads behind the database (hold.Gate.AdmitUndated).
var undatedWrites = []string{"/api/v1/runs/{id}/cancel"}

// admission is how a route of a scope above read passes the write hold.
type admission int

const (
	// admitDated: the hold is held open for the whole request.
	admitDated admission = iota
	// admitUndated: the same, past a hold for the clock (undatedWrites).
	admitUndated
	// admitsItself: the handler asks the hold itself — the backup
	// download, at its start and for its audit record — rather than hold
	// it open across a download that may last minutes, which a hold would
	// have to wait for before it began.
	admitsItself
)

// admissionOf is the admission of the route of pattern.
func admissionOf(pattern string) admission {
	switch {
	case pattern == backupPath:
		return admitsItself
	case slices.Contains(undatedWrites, pattern):
		return admitUndated
	}
	return admitDated
}

// readiness is a route's rule for a server that is not ready (Ready
// says so, and not only because its writes are held).
type readiness bool

const (
	// whenReady routes answer 503 while the server is not ready: what
	// they read or write may be stale or lost.
	whenReady readiness = false
	// evenUnready routes answer in every state: the probes, which report
	// it, and /metrics, whose qinglong_ready must read 0 while the server
	// is not ready, not go stale for want of a scrape.
	evenUnready readiness = true
)

// storeDown is a route's rule for a token the store cannot check now (a
// replica's database down, or its pool not answering).
type storeDown bool

const (
	// checkedOnly routes answer the store's error: nothing is served on
	// a token the store did not just find valid.
	checkedOnly storeDown = false
	// lastKnown routes bound the token's lookup by metricsTokenWait and,
	// past it or on the store's error, are served to a token the store
	// last found valid (knownTokens): /metrics, so that Prometheus reads a
	// replica whose database is down as up and not ready, not as down.
	lastKnown storeDown = true
)

// route is one entry of the route table: a method and mux pattern, the
// scope a token needs for it, how it finds the project a token bound to
// projects must cover (projectRule), whether it is served while the server is
// not ready and to a token the store cannot check now, the precondition
// headers it enforces (a write refuses the others), what it does in the words of help texts (routes doing the
// same to one object share them), and its handler.
type route struct {
	method, pattern string
	scope           apitoken.Scope
	projects        projectRule
	served          readiness
	unchecked       storeDown
	preconditions   conditions
	does            string
	handler         func(a *api) http.HandlerFunc
}

// routes is the one table of every route the server answers, the scope
// each needs, whether it is served while the server is not ready and
// whether to a token the store cannot check now.
// NewHandler registers the mux from it alone, and
// TestRouteTableIsEnforcedForEveryRouteAndScope walks it whole: a pattern
// on the mux without an entry here fails that test.
var routes = []route{
	{http.MethodGet, "/livez", public, noProject, evenUnready, checkedOnly, unconditional, "", func(a *api) http.HandlerFunc { return a.livez }},
	{http.MethodGet, "/readyz", public, noProject, evenUnready, checkedOnly, unconditional, "", func(a *api) http.HandlerFunc { return a.readyz }},
	{http.MethodGet, "/api/v1/runs", apitoken.Read, listed, whenReady, checkedOnly, unconditional, "list and show Runs", func(a *api) http.HandlerFunc { return a.admitted(a.runList) }},
	{http.MethodGet, "/api/v1/runs/{id}", apitoken.Read, runProject, whenReady, checkedOnly, unconditional, "list and show Runs", func(a *api) http.HandlerFunc { return a.admitted(a.runGet) }},
	{http.MethodGet, "/api/v1/runs/{id}/log", apitoken.Read, runProject, whenReady, checkedOnly, unconditional, "read a Run's output", func(a *api) http.HandlerFunc { return a.admitted(a.runLog) }},
	{http.MethodPost, "/api/v1/runs/{id}/cancel", apitoken.Operate, runProject, whenReady, checkedOnly, unconditional, "cancel a Run", func(a *api) http.HandlerFunc { return a.admitted(a.runCancel) }},
	{http.MethodPost, "/api/v1/runs/{id}/rerun", apitoken.Operate, runProject, whenReady, checkedOnly, unconditional, "re-run a finished Run", func(a *api) http.HandlerFunc { return a.admitted(a.runRerun) }},
	{http.MethodGet, "/api/v1/notifications", apitoken.Read, listed, whenReady, checkedOnly, unconditional, "list notifications", func(a *api) http.HandlerFunc { return a.admitted(a.notificationList) }},
	{http.MethodPost, "/api/v1/notifications/{id}/retry", apitoken.Operate, notificationProject, whenReady, checkedOnly, unconditional, "retry a dead notification", func(a *api) http.HandlerFunc { return a.admitted(a.notificationRetry) }},
	{http.MethodPost, "/api/v1/projects/{project}/notifications/channels/{name}/test", apitoken.Operate, pathProject, whenReady, checkedOnly, unconditional, "send a test message to a channel", func(a *api) http.HandlerFunc { return a.admitted(a.channelTry) }},
	{http.MethodGet, "/api/v1/triggers", apitoken.Read, listed, whenReady, checkedOnly, unconditional, "list and show triggers", func(a *api) http.HandlerFunc { return a.admitted(a.triggerList) }},
	{http.MethodGet, "/api/v1/triggers/{id}", apitoken.Read, triggerProject, whenReady, checkedOnly, unconditional, "list and show triggers", func(a *api) http.HandlerFunc { return a.admitted(a.triggerGet) }},
	{http.MethodPost, "/api/v1/triggers/{id}/pause", apitoken.Operate, triggerProject, whenReady, checkedOnly, unconditional, "pause and resume a trigger", func(a *api) http.HandlerFunc { return a.admitted(a.triggerPause(true)) }},
	{http.MethodPost, "/api/v1/triggers/{id}/resume", apitoken.Operate, triggerProject, whenReady, checkedOnly, unconditional, "pause and resume a trigger", func(a *api) http.HandlerFunc { return a.admitted(a.triggerPause(false)) }},
	{http.MethodPost, "/api/v1/triggers/{id}/run", apitoken.Operate, triggerProject, whenReady, checkedOnly, unconditional, "run a trigger now", func(a *api) http.HandlerFunc { return a.admitted(a.triggerRunNow) }},
	{http.MethodPost, "/api/v1/triggers/{id}/backfill", apitoken.Operate, triggerProject, whenReady, checkedOnly, unconditional, "backfill a trigger's past window", func(a *api) http.HandlerFunc { return a.admitted(a.triggerBackfill) }},
	{http.MethodPost, "/api/v1/triggers/{id}/enable", apitoken.Admin, triggerProject, whenReady, checkedOnly, checksIfMatch, "enable and disable a trigger", func(a *api) http.HandlerFunc { return a.admitted(a.triggerEnable(true)) }},
	{http.MethodPost, "/api/v1/triggers/{id}/disable", apitoken.Admin, triggerProject, whenReady, checkedOnly, checksIfMatch, "enable and disable a trigger", func(a *api) http.HandlerFunc { return a.admitted(a.triggerEnable(false)) }},
	{http.MethodPost, "/api/v1/projects/{project}/pause", apitoken.Operate, pathProject, whenReady, checkedOnly, unconditional, "pause and resume a project", func(a *api) http.HandlerFunc { return a.admitted(a.projectPause(true)) }},
	{http.MethodPost, "/api/v1/projects/{project}/resume", apitoken.Operate, pathProject, whenReady, checkedOnly, unconditional, "pause and resume a project", func(a *api) http.HandlerFunc { return a.admitted(a.projectPause(false)) }},
	{http.MethodGet, "/api/v1/projects", apitoken.Read, listed, whenReady, checkedOnly, unconditional, "list the projects", func(a *api) http.HandlerFunc { return a.admitted(a.projectList) }},
	{http.MethodGet, "/api/v1/projects/{name}", apitoken.Read, pathProject, whenReady, checkedOnly, unconditional, "find a project by name", func(a *api) http.HandlerFunc { return a.admitted(a.projectGet) }},
	{http.MethodPost, "/api/v1/apply", apitoken.Admin, fileProject, whenReady, checkedOnly, checksIfMatchOrNoneMatch, "apply a definitions file", func(a *api) http.HandlerFunc { return a.admitted(a.applyDefinitions) }},
	{http.MethodDelete, "/api/v1/projects/{name}", apitoken.Admin, everyProject, whenReady, checkedOnly, unconditional, "delete an archived project", func(a *api) http.HandlerFunc { return a.admitted(a.projectDelete) }},
	{http.MethodGet, "/api/v1/projects/{name}/definitions", apitoken.Admin, pathProject, whenReady, checkedOnly, unconditional, "export a project's definitions", func(a *api) http.HandlerFunc { return a.admitted(a.projectDefinitions) }},
	{http.MethodGet, "/api/v1/secrets", apitoken.Admin, everyProject, whenReady, checkedOnly, unconditional, "list and edit secrets", func(a *api) http.HandlerFunc { return a.admitted(a.secretList) }},
	{http.MethodPut, "/api/v1/secrets/{name}", apitoken.Admin, secretProject, whenReady, checkedOnly, unconditional, "list and edit secrets", func(a *api) http.HandlerFunc { return a.admitted(a.secretSet) }},
	{http.MethodDelete, "/api/v1/secrets/{name}", apitoken.Admin, secretProject, whenReady, checkedOnly, unconditional, "list and edit secrets", func(a *api) http.HandlerFunc { return a.admitted(a.secretDelete) }},
	{http.MethodGet, "/api/v1/audit", apitoken.Admin, listed, whenReady, checkedOnly, unconditional, "read the audit trail", func(a *api) http.HandlerFunc { return a.admitted(a.auditList) }},
	{http.MethodGet, "/api/v1/dependencies", apitoken.Admin, everyProject, whenReady, checkedOnly, unconditional, "list, add and remove dependencies", func(a *api) http.HandlerFunc { return a.admitted(a.depsList) }},
	{http.MethodPost, "/api/v1/dependencies", apitoken.Admin, everyProject, whenReady, checkedOnly, unconditional, "list, add and remove dependencies", func(a *api) http.HandlerFunc { return a.admitted(a.depsChange(a.depsAdd)) }},
	{http.MethodPost, "/api/v1/dependencies/install", apitoken.Admin, everyProject, whenReady, checkedOnly, unconditional, "list, add and remove dependencies", func(a *api) http.HandlerFunc { return a.admitted(a.depsChange(a.depsInstall)) }},
	{http.MethodPost, "/api/v1/dependencies/remove", apitoken.Admin, everyProject, whenReady, checkedOnly, unconditional, "list, add and remove dependencies", func(a *api) http.HandlerFunc { return a.admitted(a.depsChange(a.depsRemove)) }},
	{http.MethodGet, "/api/v1/dependencies/mirrors", apitoken.Admin, everyProject, whenReady, checkedOnly, unconditional, "read and set the dependencies' mirrors", func(a *api) http.HandlerFunc { return a.admitted(a.depsMirrors) }},
	{http.MethodPost, "/api/v1/dependencies/mirrors", apitoken.Admin, everyProject, whenReady, checkedOnly, unconditional, "read and set the dependencies' mirrors", func(a *api) http.HandlerFunc { return a.admitted(a.depsMirrorSet) }},
	{http.MethodGet, backupPath, apitoken.Admin, everyProject, whenReady, checkedOnly, unconditional, "download a backup of the data directory", func(a *api) http.HandlerFunc { return a.backupDownload }},
	{http.MethodGet, openAPIPath, apitoken.Read, noProject, whenReady, checkedOnly, unconditional, "read the API's description", func(a *api) http.HandlerFunc { return a.admitted(a.openAPI) }},
	{http.MethodGet, metricsPath, apitoken.Read, everyProject, evenUnready, lastKnown, unconditional, "read the metrics", func(a *api) http.HandlerFunc { return a.metrics }},
}

// Actions are what a token of scope may do that one of the scope below it
// may not, in the words of help texts, in the route table's order: what
// `ql tokens --help` says of each scope, so that it cannot fall behind
// the routes.
func Actions(scope apitoken.Scope) []string {
	var out []string
	for _, r := range routes {
		if r.scope == scope && !slices.Contains(out, r.does) {
			out = append(out, r.does)
		}
	}
	return out
}
