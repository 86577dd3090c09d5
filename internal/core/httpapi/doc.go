// Package httpapi is the HTTP API every profile serves: liveness,
// readiness, the read API over runs, triggers and notifications, and the
// operator's writes (pause, resume, cancel, run now, backfill, re-run, a
// dead notification's retry).
//
//	GET  /livez                 200 while the process lives
//	GET  /readyz                200 while admitting; 503 {"status":"unavailable","reason":…} otherwise
//	GET  /api/v1/runs           ?project=&trigger=&state=&worker=&limit=&after=  → {"runs":[…],"next":"…"}
//	GET  /api/v1/runs/{id}      → {"run":…,"attempts":[…],"events":[…]}
//	GET  /api/v1/triggers       ?project=&limit=&after=&search=&lastRun=false → {"triggers":[…, each with its lastRun unless false],"next":"…"}
//	GET  /api/v1/notifications  ?project=&state=&limit=&after=          → {"notifications":[…],"next":"…"}
//	POST /api/v1/triggers/{id}/pause, …  (routes.go has them all)
//
// One route table (routes.go) names the scope of API token each route
// needs; only the two probes need none. Every API route also checks the
// Host header against an allow-list (DNS rebinding), the token's rate and
// the body's size, and throttles addresses that fail to authenticate.
//
// Every route refuses while the server is not ready, but for reads while
// only its writes are held (Config.Writes); a held write is refused in the
// hold's words, with its reason.
//
// Every error is JSON {"error":{"code":…,"message":…,"reason":…}} with a
// stable code, and a reason where the refusal has one;
// exactly one function (statusOf) maps codes to HTTP statuses, and internal
// errors never show their detail to the client.
package httpapi
