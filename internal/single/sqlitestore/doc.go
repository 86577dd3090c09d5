// Package sqlitestore is the single-node profiles' storage adapter on an
// embedded SQLite file (modernc.org/sqlite: pure Go, so edge builds
// cross-compile without cgo). It implements catalog.Store, schedule.Store,
// schedule.StatusReader, run.Reader and the local executor's run-state
// writes (executor.Store). Nothing above it imports the driver; driver
// errors become qlerror codes in mapErr.
//
// Connections: one writer connection (WAL, busy_timeout, foreign keys on,
// temporary storage in memory, every transaction BEGIN IMMEDIATE) and a query_only read pool. Statements
// live in queries/*.sql, each commenting the invariant it enforces, and are
// prepared once the store is ready.
//
// The schedule fence. A schedule row is (trigger_revision, next_fire_at_ms
// or NULL, last_scheduled_at_ms, state_version), plus due_offset_ms, the
// cursor occurrence's jitter: the row falls due at cursor + offset, and a
// NULL offset with a cursor is a row whose trigger's endAt has passed,
// which no take returns. There are no leases:
//
//	ScheduleTake (read pool, no lock)            ScheduleCommit (BEGIN IMMEDIATE)
//	  page of NULL, then due cursors,      ──►     re-read project, trigger head and revision,
//	  claim order, observed at NowMs()             task head and revision, schedule row;
//	                                               drift ⇒ raced, altered content ⇒ failed;
//	                                               admit: verify the local_process plan,
//	                                               insert run + attempt + 2 events;
//	                                               UPDATE … WHERE trigger_revision = ?
//	                                                 AND state_version = ? AND cursor IS ?
//	                                               0 rows ⇒ raced, everything rolls back
//
// ScheduleCommitPage runs the same commit for each decision of a page in
// one BEGIN IMMEDIATE transaction, each inside its own savepoint: a
// decision that is raced or fails is undone to its savepoint alone, and
// the page pays one lock acquisition and one WAL commit.
//
// Two processes on one file may take the same row; the write lock orders
// their commits and the first one bumps state_version, so the second is
// raced and writes nothing. The unique idempotency key
// ql3:cron:v1:<trigger>:<revision>:<scheduledFor> backs this up: an
// occurrence can be admitted once, whatever happens to the cursor.
// Publishing a trigger revision resets its row (cursor NULL, state_version
// + 1) in the same transaction, so no ticket taken before can commit.
//
// With no lease, a row whose stored cron this host cannot read, or whose
// stored policy this build cannot decide, would be taken again at the
// head of every page (its cursor never moves);
// ScheduleRecheckLater has the take pass it over for a while, only while
// its state_version is the one that failed, so a republish ends the wait.
//
// Durability: schedule decisions and attempt progress commit at
// synchronous=NORMAL; definitions, migrations and an attempt's start commit
// at FULL (see durability). A power loss can therefore undo only
// admissions no command has started for.
//
// A Run finishes (run.Finishes) in one transitionRun under its version:
// the executor's result (AttemptFinish), the recovery of a dead owner
// (AttemptsLose), a cancel of a Run that had not started (CancelRun, and
// cancel_previous in a commit or a manual admission). The first two go
// through settleRun, which instead sends the Run to retry_wait with its
// next attempt when its retry policy allows one, as the cluster's does;
// RetriesRequeue queues it again once the backoff has passed. Each reports
// the Runs it finished; one that finds its Run finished (a result refused as the
// attempt already ended, a second cancel, a lost Run closed cancelled)
// reports none, so a server counting the reports counts each Run once.
//
// Revisions and run events are append-only, enforced by triggers in the
// schema; readiness (Ready) demands the file's schema equal, object for
// object, what the embedded migration stream produces.
package sqlitestore
