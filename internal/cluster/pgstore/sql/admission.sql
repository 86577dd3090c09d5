-- Admission statements (docs/architecture.md, "Admission"), all inside one
-- REPEATABLE READ transaction that locks the schedule row (commit_lock.sql
-- says why that lock keeps every verified fact true until COMMIT).
--
-- Why not SERIALIZABLE: its predicate (SIREAD) locks outlive the commit for
-- as long as any serializable read-write transaction that overlapped it is
-- still open, and they live in one fixed-size shared table sized by
-- max_pred_locks_per_transaction. An admission took 14 of them (a tuple
-- of each of the six definition tables it joins, eight btree leaf pages of
-- their indexes), each an entry of its own, so one replica frozen with its
-- admission open (or any serializable read-write transaction held open)
-- kept every later admission's entries alive: after about nine admissions
-- per server connection slot the table was full, and every admission in
-- the cluster failed with "out of shared memory" (53200) until the frozen
-- transaction ended. A row lock takes no shared predicate-lock memory, ends
-- with its transaction and conflicts only with writers of the same row, and
-- the schedule row's lock is all the admission needs to meet a concurrent
-- publish (commit_lock.sql).

-- name: BeginAdmission
-- Started in the same round trip as the lock statement. One snapshot for
-- the whole transaction: a locked row that changed after it fails with
-- 40001 instead of being silently re-read.
BEGIN ISOLATION LEVEL REPEATABLE READ

-- name: Commit
-- Committed in the same round trip as CommitWrite; COMMIT runs only if the
-- write succeeded (the server skips the rest of a failed pipeline).
COMMIT

-- name: Rollback
-- Ends an admission that did not commit; nothing it wrote survives.
ROLLBACK

-- name: GenericPlans
-- Planning the lock statement's eight-way join costs about ten times
-- executing it, planning the claim more than executing it; their best
-- plans do not depend on the parameters (the lock: TID scan, then
-- primary-key lookups; the page lock: primary-key lookups per row of the
-- page, a form it is written to keep whatever the statistics, since a
-- generic plan does not know the page's size (commit_page.sql,
-- CommitPageLock); the claim: each branch walks its index in claim
-- order), so the cached generic plan is used. The admission's reads of
-- runs, whose best plan does depend on that table's size, are a statement
-- of their own planned each time (CustomPlans). set_config, not SET LOCAL:
-- the claim runs in no transaction block (SET LOCAL would warn there),
-- only in the implicit transaction of its pipeline, which the setting
-- lasts exactly as long as.
SELECT set_config('plan_cache_mode', 'force_generic_plan', true)

-- name: CustomPlans
-- The opposite of GenericPlans, for a statement whose best plan depends on
-- how big a growing table is at the moment (commit_page.sql,
-- CommitPageProbe, sent only where a decision needs it): the statements
-- after it in the transaction are planned for their own parameters and the
-- tables' current size each time they run. The pipeline sets GenericPlans
-- again right after that statement.
SELECT set_config('plan_cache_mode', 'force_custom_plan', true)

-- name: ScheduleLocate
-- Fallback when the commit has no handle for the claimed row version (or it
-- moved): find the row by primary key; the lock statement then re-checks
-- the whole fence on it.
SELECT ctid FROM qinglong.trigger_schedules WHERE trigger_id = $1

-- name: NowMs
-- Reads the database clock, the only time authority of the cluster.
SELECT {{now_ms}}
