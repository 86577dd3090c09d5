// Package pgstore is the PostgreSQL adapter of the cluster profile: the
// control schema and its migrations, the five least-privilege roles,
// fail-closed readiness, publishing (catalog.Store, admin role) and the
// row-lease claim and atomic Run admission (schedule.Store, runtime role).
// Nothing above this package imports pgx.
//
// # Schedule row and its fence
//
// One row per trigger head in qinglong.trigger_schedules:
//
//	publish (admin) ──► unclaimed ──claim──► claimed ──commit──► unclaimed
//	                        ▲                   │
//	                        └── takeover ◄──────┘ database time ≥ expiry
//
//	publish:  revision := new, cursor := NULL, due offset := 0, claim cleared,
//	          state_version+1, claim_version+1; schedulable := whether a
//	          claim may take the row (the claim's index filter, never its
//	          fence; a publish that ends a row's eligibility thereby writes
//	          the row, which is what meets a concurrent commit's row lock)
//	claim:    one autocommit statement, database clock sampled once:
//	          owner, token := fresh, claim_version+1, expiry := now+lease,
//	          state_version+1, updated_at_ms := now (the acquired time)
//	commit:   row locked, everything re-verified; cursor := next and
//	          due_offset_ms := its jitter (NULL: the trigger's endAt has
//	          passed and the row is ended, taken by no claim again),
//	          claim cleared, state_version+1
//	takeover: a claim by another replica of an expired row (claim_version+1)
//
// The fence a commit carries is the whole lease — owner, token,
// claim_version, expiry and acquired time (updated_at_ms) — plus the trigger
// revision, state_version and cursor of the ticket. A stale owner can never
// commit: the takeover or the publish that displaced it bumped
// claim_version and state_version and replaced the token, and the final
// schedule UPDATE names all of them, requires database time < expiry and
// must touch exactly one row. claim_version is monotonic and survives a
// cleared claim, so a version can never be issued twice (no ABA).
//
// # Time
//
// Only PostgreSQL's clock decides: the claim samples clock_timestamp() once
// and that instant is the ticket's ObservedAtMs, the lease's acquired time
// and the base of its expiry; the commit samples it again under the row
// lock (time ≥ expiry → raced, time < acquired → fail closed) and once more
// in the final UPDATE. No API here takes a time from the caller but a
// claim ahead's instant (ScheduleTakeAhead), which only widens which rows
// the claim takes, by at most half a lease: such a ticket is decided at its
// row's own due time, and admitted only once the database clock, read
// under the row lock, has reached it.
//
// # Admission
//
// One REPEATABLE READ transaction: lock the row and read every fact
// (project, trigger head and revision, task head and pinned revision,
// execution revision) with the database time; verify item by item; write
// queued Run (version 2, last event 2, idempotency key ql3:cron:v1:<trigger>:<rev>:<ms>),
// Attempt 1 claimed for remote_worker, events run.created and run.queued,
// and the fenced schedule update. Serialization failures and deadlocks are
// retried from scratch a bounded number of times; a connection lost during
// COMMIT is "outcome unknown" and never retried blindly. The transaction
// takes no predicate locks, so a replica frozen mid-admission holds one row
// lock and nothing every other admission needs (sql/admission.sql says why that
// rules out SERIALIZABLE; commit_lock.sql why the row lock is enough).
// handles.go explains why the row is addressed by ctid.
//
// # Finishing a Run
//
// A Run finishes (run.Finishes) in exactly one write: advanceRun, under
// the Run's version fence, from an unfinished state to succeeded, failed,
// timed_out, cancelled or lost. Every operation that can make it —
// CompleteAttempt, SweepLeases, StartAttempt, CancelRun, a commit or a
// manual admission that cancels under cancel_previous — reports the Runs
// it finished once its transaction committed; a write that finds the Run
// finished (a replayed completion, a second replica's sweep, a cancel that
// lost the race) reports none, and neither does an attempt given a retry
// (retry_wait) nor a lost Run closed cancelled. A replica counts those
// reports (qinglong_runs_finished_total), so the sum over replicas counts
// each Run once; a COMMIT whose reply is lost is reported by no call.
//
// # Roles
//
// migration owns the schema (only DDL authority); admin publishes; runtime
// reads definitions, reads and updates (never inserts) schedule rows,
// reads/inserts/updates runs and attempts and appends events, and never
// deletes; worker_ingress may only connect and has no table privilege until
// workers get work. grants.go is the exact matrix EnsureRoles installs and
// readiness verifies; session.go the search_path and timeouts every role
// and connection carries.
package pgstore
