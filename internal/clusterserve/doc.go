// Package clusterserve is the composition root of the cluster profile:
// `ql serve --profile cluster` and the PostgreSQL backend of the read and
// apply commands.
//
// Start, in this order (SPEC §7):
//
//	settings (flags, QL_* environment, --config) validated ─ exit 2 naming the setting
//	  → open the runtime pool (TLS as the URL says) and bind HTTP: /livez 200, /readyz 503 "starting"
//	  → readiness (schema, history, privileges) ─ fail closed
//	  → startup recovery to convergence (candidates held)
//	  → scheduler started
//	  → admission open: /readyz 200, the API answers
//
// Stop on SIGTERM/SIGINT, all within --stop-timeout:
//
//	admission closed (/readyz 503 "draining") → scheduler stopped and drained
//	  → HTTP shut down → pool closed → exit 0
//
// A lost database connection (a connection-class SQLSTATE or a network
// error, seen by the scheduler or by an API request) turns /readyz 503
// "database_unavailable" for good: only a restart makes the replica ready
// again, so readiness never flaps while an operator investigates.
package clusterserve
