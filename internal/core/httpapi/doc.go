// Package httpapi is the cluster replica's HTTP surface: liveness,
// readiness and the read API over runs and triggers.
//
//	GET /livez                 200 while the process lives
//	GET /readyz                200 while admitting; 503 {"status":"unavailable","reason":…} otherwise
//	GET /api/v1/runs           ?project=&trigger=&state=&limit=&after=  → {"runs":[…],"next":"…"}
//	GET /api/v1/runs/{id}      → {"run":…,"attempts":[…],"events":[…]}
//	GET /api/v1/triggers       ?project=&limit=&after=                 → {"triggers":[…],"next":"…"}
//
// Every error is JSON {"error":{"code":…,"message":…}} with a stable code;
// exactly one function (statusOf) maps codes to HTTP statuses, and internal
// errors never show their detail to the client.
package httpapi
