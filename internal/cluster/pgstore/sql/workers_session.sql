-- Worker authentication and sessions, over the runtime role (the worker
-- ingress runs inside the replica; workers_session.go).

-- name: WorkerAuthenticate
-- The worker a credential digest belongs to, and whether the credential is
-- still valid: its current one is, and one a rotation replaced is until
-- its time passes in database time. The ingress runs it on every request,
-- so a revocation, or the end of a replaced credential's time, takes
-- effect on the very next one.
SELECT id, name, state, credential_sha256 = $1 OR previous_credential_until_ms > {{now_ms}}
  FROM qinglong.workers
 WHERE credential_sha256 = $1 OR previous_credential_sha256 = $1

-- name: WorkerForRegister
-- The credential's labels, concurrency bound and state, read when a
-- session opens (effective labels and capacity are derived from them).
SELECT name, labels, max_concurrency, state FROM qinglong.workers WHERE id = $1

-- name: SessionOpen
-- Opens a session as generation max + 1 of its worker and marks every
-- older live session of the worker replaced, in one statement. Two
-- concurrent registrations that compute the same generation collide on
-- worker_sessions_generation_key (the loser retries and replaces the
-- winner); one that computes a later generation replaces it: at most one
-- session of a worker stays live. A draining worker's session starts
-- draining; a revoked worker opens nothing (no row returned). Also returns
-- the sessions it replaced, with their labels: the caller then gives back
-- their grants never started and wakes the waiting pulls, so a replaced
-- worker's long-poll answers replaced at once, and says when the labels
-- changed with the replacement. The session records the grant fields its
-- worker reads (@reads, pg-0052), which Dispatch grants by, and the run
-- lease the registration tells the worker (@run_lease_ms, pg-0055), which
-- every replica counts its return grace by (MonitorWorkerStates).
WITH n AS MATERIALIZED (SELECT {{now_ms}} AS ms),
w AS (
    SELECT id, state FROM qinglong.workers WHERE id = @worker_id AND state <> 'revoked'
),
opened AS (
    INSERT INTO qinglong.worker_sessions (id, worker_id, generation, labels, capacity, running, version, state,
                                          created_at_ms, heartbeat_at_ms, lease_expires_at_ms, updated_at_ms, reads,
                                          run_lease_ms)
    SELECT @id, w.id,
           coalesce((SELECT max(g.generation) FROM qinglong.worker_sessions g WHERE g.worker_id = w.id), 0) + 1,
           @labels, @capacity, 0, @version, CASE WHEN w.state = 'draining' THEN 'draining' ELSE 'active' END,
           n.ms, n.ms, n.ms + @session_lease_ms, n.ms, @reads::text[], @run_lease_ms::bigint
      FROM w, n
    RETURNING id, generation, state
),
replaced AS (
    UPDATE qinglong.worker_sessions s
       SET state = 'replaced', updated_at_ms = greatest(s.updated_at_ms, n.ms)
      FROM opened o, n
     WHERE s.worker_id = @worker_id AND s.state IN ('active', 'draining') AND s.generation < o.generation
    RETURNING s.id, s.labels
)
SELECT o.id, o.generation, o.state, ARRAY(SELECT id::text FROM replaced),
       coalesce((SELECT jsonb_agg(labels) FROM replaced), '[]'::jsonb)
  FROM opened o

-- name: SessionHeartbeat
-- Extends a live session of this worker (fenced by session id, worker id,
-- a live state and a lease not yet passed in database time) and records
-- how many commands it runs. A worker drained since the session opened
-- turns the session draining here. A worker whose registration an older
-- replica took without the grant fields it reads names them here (@reads,
-- NULL when it does not), and the session records them as its
-- registration would have (pg-0052): a rolling upgrade never leaves an
-- upgraded worker counted as reading nothing, and so never granted the
-- Runs those fields gate, until it happens to register again. Returns
-- nothing when any fence fails (the caller then says which).
UPDATE qinglong.worker_sessions s
   SET heartbeat_at_ms = n.ms,
       lease_expires_at_ms = n.ms + @session_lease_ms,
       running = @running,
       state = CASE WHEN w.state = 'draining' THEN 'draining' ELSE s.state END,
       reads = coalesce(@reads::text[], s.reads),
       updated_at_ms = greatest(s.updated_at_ms, n.ms)
  FROM qinglong.workers w, (SELECT {{now_ms}} AS ms) n
 WHERE s.id = @session_id AND s.worker_id = @worker_id AND w.id = s.worker_id
   AND s.state IN ('active', 'draining') AND s.lease_expires_at_ms > n.ms AND w.state <> 'revoked'
RETURNING s.state

-- name: SessionEnd
-- Ends a live session of this worker at its worker's clean stop (fenced
-- by session id, worker id and a live state): from now on it is not
-- counted live and gets no work. Started attempts keep their leases, which
-- belong to the worker, not to a session: one the worker could not report
-- ends with its lease as any other. Its grants never started are given
-- back by the same transaction (SessionUnstartedGrants, then
-- AttemptRelease). Returns nothing when a fence fails (the caller then
-- reads the state that ended it). The UPDATE waits for a pull of the
-- session still in progress (it holds the row's lock), so the statements
-- after it see that pull's grants.
UPDATE qinglong.worker_sessions s
   SET state = 'ended', updated_at_ms = greatest(s.updated_at_ms, n.ms)
  FROM (SELECT {{now_ms}} AS ms) n
 WHERE s.id = @session_id AND s.worker_id = @worker_id AND s.state IN ('active', 'draining')
RETURNING s.state

-- name: SessionState
-- A session's owner and its state as of now in database time
-- (SessionStateNow). The row is locked (NO KEY UPDATE): inside a pull's
-- transaction this serialises the pulls of one session, so two of them
-- never both fill the same free slots, and an end of the session waits
-- for a pull in progress, so it sees that pull's grants.
SELECT s.worker_id, {{SessionStateNow}}
  FROM qinglong.worker_sessions s JOIN qinglong.workers w ON w.id = s.worker_id
 WHERE s.id = $1
   FOR NO KEY UPDATE OF s

-- name: SessionStateWatched
-- SessionState without the lock, for a watch (a pull of max 0): it grants
-- nothing, so it needs no serialising with the session's pulls, and a
-- plain read writes nothing (no transaction id, no WAL).
SELECT s.worker_id, {{SessionStateNow}}
  FROM qinglong.worker_sessions s JOIN qinglong.workers w ON w.id = s.worker_id
 WHERE s.id = $1

-- name: SessionHeardDrain
-- Turns a live, active session of this worker draining when its
-- credential is drained (`ql workers drain`), stopping_at_ms left NULL: the
-- admin's doing. Run before every read whose answer tells the worker its
-- session's state (a pull, a watch; SessionHeardDrainOfAttempt before a
-- start or renewal), so a worker told `draining` has its session recorded
-- draining in the same breath, not only at its next heartbeat. The process
-- then exits once its commands end whatever happens to the credential: a
-- `ql workers resume` lifts the drain for its next registration, while
-- this session stays draining — never listed active with free slots it
-- will not fill, nor taken for a process stopping on a signal when its
-- draining watch comes (SessionStopping changes only an active session).
-- Marking before the read fences a resume racing it: a resume committed
-- first leaves the session active and the read answers active; one
-- committed after finds the session draining, as the read answers. Only
-- that transition writes: once the session drains, or while the
-- credential is active, no row matches and nothing is written.
UPDATE qinglong.worker_sessions s
   SET state = 'draining', updated_at_ms = greatest(s.updated_at_ms, n.ms)
  FROM qinglong.workers w, (SELECT {{now_ms}} AS ms) n
 WHERE s.id = $1 AND s.worker_id = $2 AND w.id = s.worker_id
   AND s.state = 'active' AND s.lease_expires_at_ms > n.ms AND w.state = 'draining'

-- name: SessionHeardDrainOfAttempt
-- SessionHeardDrain for the session attempt $1 was granted under, before
-- a start or renewal reply tells that session's state (LeaseFacts): the
-- same transition, the same fence, read before the attempt is locked so
-- the session's row is locked before the attempt's Run, as a pull does.
UPDATE qinglong.worker_sessions s
   SET state = 'draining', updated_at_ms = greatest(s.updated_at_ms, n.ms)
  FROM qinglong.workers w, qinglong.attempts a, (SELECT {{now_ms}} AS ms) n
 WHERE a.id = $1 AND s.id = a.session_id AND s.worker_id = $2 AND w.id = s.worker_id
   AND s.state = 'active' AND s.lease_expires_at_ms > n.ms AND w.state = 'draining'

-- name: SessionStopping
-- Turns an active session of this worker draining because its worker said
-- it drains (a draining watch) while its credential is active: a worker
-- stopping on a signal, or on an error that ends it, takes no more work
-- and finishes what runs, for up to its stop timeout. stopping_at_ms says
-- it was the worker's own stop, not an admin's drain (whose session turns
-- draining at its heartbeat, its credential draining). Fenced by session
-- id, worker id, an active state and a lease not yet passed, as a
-- heartbeat is; a session already draining, ended, replaced or expired is
-- left as it is (no row updated, nothing written).
UPDATE qinglong.worker_sessions s
   SET state = 'draining', stopping_at_ms = n.ms, updated_at_ms = greatest(s.updated_at_ms, n.ms)
  FROM qinglong.workers w, (SELECT {{now_ms}} AS ms) n
 WHERE s.id = $1 AND s.worker_id = $2 AND w.id = s.worker_id
   AND s.state = 'active' AND s.lease_expires_at_ms > n.ms AND w.state = 'active'

-- name: SessionStopsAsked
-- The attempts of session $1 of worker $2, starting or running, whose Run
-- a stop was asked of (a cancel recorded as an intent): what a waiting
-- pull or watch answers once a stop-asked notice woke it. The session's
-- primary key (its owner checked), then one scan of
-- attempts_session_live_idx (its predicate is implied: a state among
-- starting and running, of a session), a handful of rows at most (a
-- session holds at most its capacity), then one runs primary-key probe
-- each; read without a lock, since it only tells the worker to renew now.
SELECT a.id
  FROM qinglong.worker_sessions s
  JOIN qinglong.attempts a ON a.session_id = s.id AND a.state IN ('starting', 'running')
  JOIN qinglong.runs r ON r.id = a.run_id
 WHERE s.id = $1 AND s.worker_id = $2 AND r.cancel_requested_at_ms IS NOT NULL
 ORDER BY a.id

-- name: SessionUnstartedGrants
-- The grants of one session that were never started (claimed, still
-- leased), with the token digest each was granted under, read without a
-- lock through attempts_session_live_idx at a session's end: each is then
-- locked through LeaseFacts and given back only if it is still unstarted,
-- of that session and under that same token.
SELECT a.id, a.lease_token_sha256
  FROM qinglong.attempts a
 WHERE a.session_id = $1 AND a.state = 'claimed' AND a.lease_token_sha256 IS NOT NULL
 ORDER BY a.id
