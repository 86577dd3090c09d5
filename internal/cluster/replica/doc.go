// Package replica is the composition root of the cluster profile:
// `ql serve --profile cluster` and the PostgreSQL backend of the read and
// apply commands.
//
// Start, in this order:
//
//	settings (flags, QL_* environment, --config) validated ─ exit 2 naming the setting
//	  → bind HTTP: /livez 200, /readyz 503 "starting"
//	  → bind the worker ingress (TLS off loopback): 503 "unavailable"
//	  → activation:
//	      open a fresh runtime pool (TLS as the URL says)
//	      → readiness (schema, history, privileges)
//	      → startup recovery: lease sweep to convergence, then the scan (candidates held)
//	      → lease sweep loop and notice listener started
//	      → scheduler started (each round that admitted wakes the workers' pulls)
//	  → admission open: /readyz 200, the API and the worker ingress answer
//
// An activation that fails for a reason a retry may cure (the server
// unreachable, restarting or short of resources, a backend terminated, a
// lock or statement timeout) is retried with a doubling backoff from 100 ms
// capped at a quarter of the cadence (at most 5 s); /readyz says "starting"
// meanwhile. One no
// retry can cure (the URL, TLS or password, a missing or drifted schema,
// privileges) stops the process with exit 1, naming the readiness code.
//
// Readiness's history check is repeated after every heartbeat: a migration
// history that changes while the replica runs (a newer build's `ql db
// migrate`, a restore of an older database) ends it through the ordered
// stop below, with exit 1 naming the readiness code, so a replica never
// goes on working on a schema its binary does not know for longer than a
// heartbeat (at most 5 s).
//
// A lost database connection (a connection-class SQLSTATE or a broken
// socket, seen by the scheduler or by an API request; never a request's own
// deadline or cancellation) trips the activation's availability latch:
// /readyz turns 503 "database_unavailable" at once, the scheduler takes no
// further claim and is stopped, the pool is closed, and a fresh activation
// begins, backing off as above. /readyz is 200 again only once that
// activation has completed, so readiness never reports a replica whose
// pool, recovery or scheduler predates the loss. A PostgreSQL restart takes
// the same path.
//
// Stop on SIGTERM/SIGINT, whatever phase it lands in (an activation step,
// a backoff, a lost activation being stopped), all within --stop-timeout of
// the signal:
//
//	admission closed (/readyz 503 "draining", the ingress 503, waiting pulls answered)
//	  → scheduler stopped and drained → HTTP and the worker ingress shut down
//	  → sweep and listener stopped → worker requests still inside awaited → pool closed → exit 0
//
// A lost activation stops the same way, the listeners aside: worker
// requests already inside it finish before its pool closes, new ones get
// 503 until the fresh activation is open.
package replica
