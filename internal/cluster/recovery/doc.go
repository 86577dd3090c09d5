// Package recovery is the cluster replica's startup recovery gate.
//
// Before a replica starts scheduling it first acts on what the rules
// decide, then looks for what no rule decides:
//
//  1. the lease sweep, page after page until a page is not full (at most
//     MaxSweepPages): an expired lease of an unstarted grant is released
//     and its Run offered again; an expired lease of a started Attempt
//     makes it lost, then retried (Attempt N+1 after the backoff) or the
//     Run lost; a retry whose backoff has passed is queued again;
//  2. a scan of every unfinished Run created up to a horizon taken from
//     the database clock, which holds each recovery candidate: a Run in a
//     shape no rule moves on. Normal shapes are excluded
//     (docs/architecture.md, "Worker ingress"): queued or retry_wait with
//     the latest Attempt claimed, unleased and never started (pristine
//     scheduler output among them: the dispatcher's work), and dispatching
//     or running with the latest Attempt under a lease (the worker's, or
//     the sweep's once it expires). Anything else — a dispatching Run
//     without a lease, an Attempt of another executor, a missing Attempt —
//     is a candidate, and fails closed.
//
// A candidate is reported and held: never executed, never deleted, never
// changed by the gate. The gate must converge (finish a complete pass)
// before the scheduler starts. The first MaxHeldListed candidates are
// logged and kept one by one, the rest only counted, and a long scan logs
// its progress every 100 pages. Both parts stay bounded by the work there
// is: the sweep reads expired leases through their expiry index, and the
// scan reads unfinished Runs only, however many finished ones the
// database holds.
//
//	Run ─► sweep page … until not full ─► page(horizon = database now) ─► page(after) … ─► next == "" ─► Report{HeldCount, Held}
package recovery
