// Package recovery is the cluster replica's startup recovery gate.
//
// Before a replica starts scheduling it pages through every unfinished Run
// created up to a horizon taken from the database clock, and holds each
// recovery candidate: a Run whose durable state is not exactly what the
// scheduler's admission writes.
//
// Pristine scheduler output is excluded (docs/architecture.md, "Rounds and the lifecycle"): a queued, uncancelled,
// scheduled Run with its queued time set, whose latest and only Attempt is
// the claimed remote_worker Attempt 1 with every worker, session, lease,
// offer, callback, start, result and error field still at its initial
// value. That work still belongs to the dispatcher; treating it as failed
// would duplicate or drop it. Anything else — any drifted field, a
// dispatching Run, a newer Attempt — is a candidate, and fails closed.
//
// Until the dispatcher exists a candidate is reported and held: never
// executed, never deleted, never changed. The gate must converge (finish a
// complete pass) before the scheduler starts. The first MaxHeldListed
// candidates are logged and kept one by one, the rest only counted, and a
// long scan logs its progress every 100 pages.
//
//	Run ─► page(horizon = database now) ─► page(after) … ─► next == "" ─► Report{HeldCount, Held}
package recovery
