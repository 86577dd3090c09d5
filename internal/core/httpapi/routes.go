package httpapi

import (
	"net/http"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// public marks the two probes, the only routes without a token.
const public apitoken.Scope = ""

// route is one entry of the route table: a method and mux pattern, the
// scope a token needs for it, and its handler.
type route struct {
	method, pattern string
	scope           apitoken.Scope
	handler         func(a *api) http.HandlerFunc
}

// routes is the one table of every route the server answers and the scope
// each needs. NewHandler registers the mux from it alone, and
// TestRouteTableIsEnforcedForEveryRouteAndScope walks it whole: a pattern
// on the mux without an entry here fails that test.
var routes = []route{
	{http.MethodGet, "/livez", public, func(a *api) http.HandlerFunc { return a.livez }},
	{http.MethodGet, "/readyz", public, func(a *api) http.HandlerFunc { return a.readyz }},
	{http.MethodGet, "/api/v1/runs", apitoken.Read, func(a *api) http.HandlerFunc { return a.admitted(a.runList) }},
	{http.MethodGet, "/api/v1/runs/{id}", apitoken.Read, func(a *api) http.HandlerFunc { return a.admitted(a.runGet) }},
	{http.MethodGet, "/api/v1/runs/{id}/log", apitoken.Read, func(a *api) http.HandlerFunc { return a.admitted(a.runLog) }},
	{http.MethodPost, "/api/v1/runs/{id}/cancel", apitoken.Operate, func(a *api) http.HandlerFunc { return a.admitted(a.runCancel) }},
	{http.MethodPost, "/api/v1/runs/{id}/rerun", apitoken.Operate, func(a *api) http.HandlerFunc { return a.admitted(a.runRerun) }},
	{http.MethodGet, "/api/v1/notifications", apitoken.Read, func(a *api) http.HandlerFunc { return a.admitted(a.notificationList) }},
	{http.MethodPost, "/api/v1/notifications/{id}/retry", apitoken.Operate, func(a *api) http.HandlerFunc { return a.admitted(a.notificationRetry) }},
	{http.MethodGet, "/api/v1/triggers", apitoken.Read, func(a *api) http.HandlerFunc { return a.admitted(a.triggerList) }},
	{http.MethodGet, "/api/v1/triggers/{id}", apitoken.Read, func(a *api) http.HandlerFunc { return a.admitted(a.triggerGet) }},
	{http.MethodPost, "/api/v1/triggers/{id}/pause", apitoken.Operate, func(a *api) http.HandlerFunc { return a.admitted(a.triggerPause(true)) }},
	{http.MethodPost, "/api/v1/triggers/{id}/resume", apitoken.Operate, func(a *api) http.HandlerFunc { return a.admitted(a.triggerPause(false)) }},
	{http.MethodPost, "/api/v1/triggers/{id}/run", apitoken.Operate, func(a *api) http.HandlerFunc { return a.admitted(a.triggerRunNow) }},
	{http.MethodPost, "/api/v1/triggers/{id}/backfill", apitoken.Operate, func(a *api) http.HandlerFunc { return a.admitted(a.triggerBackfill) }},
	{http.MethodPost, "/api/v1/triggers/{id}/enable", apitoken.Admin, func(a *api) http.HandlerFunc { return a.admitted(a.triggerEnable(true)) }},
	{http.MethodPost, "/api/v1/triggers/{id}/disable", apitoken.Admin, func(a *api) http.HandlerFunc { return a.admitted(a.triggerEnable(false)) }},
	{http.MethodPost, "/api/v1/apply", apitoken.Admin, func(a *api) http.HandlerFunc { return a.admitted(a.applyDefinitions) }},
	{http.MethodGet, "/api/v1/projects/{name}/definitions", apitoken.Admin, func(a *api) http.HandlerFunc { return a.admitted(a.projectDefinitions) }},
	{http.MethodGet, "/metrics", apitoken.Read, func(a *api) http.HandlerFunc { return a.metrics }},
}
