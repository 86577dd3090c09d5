-- Worker credentials, managed by the admin role (workers_admin.go). Only a
-- credential's SHA-256 is ever written.

-- name: WorkerInsert
-- Creates a worker credential, active. The unique name and the unique
-- digest make a second worker of the same name a Conflict.
INSERT INTO qinglong.workers (id, name, labels, max_concurrency, credential_sha256, state, created_at_ms, updated_at_ms)
SELECT @id, @name, @labels, @max_concurrency, @credential_sha256, 'active', n.ms, n.ms
  FROM (SELECT {{now_ms}} AS ms) n

-- name: WorkerList
-- Every worker by name, with its live session (active or draining whose
-- lease has not passed in database time, of a credential not revoked: a
-- revoked worker's process is refused and exits; a session its worker
-- ended at a clean stop is not live). A worker has at most one:
-- SessionOpen marks the older session replaced in the statement that
-- opens the newer, so the aggregates below read zero rows or one, and
-- they are aggregates only because the LEFT JOIN groups by worker. Read:
-- whether it is live, whether it drains, whether because its worker said
-- it stops (stopping_at_ms), its capacity, its free slots while it takes
-- work (an active session of an active credential; a draining one takes
-- none) as of its last heartbeat, the last heartbeat of any session, and
-- the live session's label set in a list (the credential's plus those
-- its process gave: what placement matches, as the dispatch and the
-- waiting note read them). Last, how long ago in database time the last
-- heartbeat of any session was, and the live session's (NULL without
-- one): a frozen worker keeps its session live until its lease passes,
-- and only its heartbeats' age shows it. Then the grant fields the live
-- session reads (pg-0052), in a list: an operator sees which workers are
-- too old for a project's env.
SELECT w.name, w.labels, w.max_concurrency, w.state, w.created_at_ms,
       count(s.id), count(s.id) FILTER (WHERE s.state = 'draining'), count(s.id) FILTER (WHERE s.stopping_at_ms IS NOT NULL),
       coalesce(sum(s.capacity), 0),
       coalesce(sum(greatest(s.capacity - s.running, 0)) FILTER (WHERE s.state = 'active' AND w.state = 'active'), 0),
       (SELECT max(h.heartbeat_at_ms) FROM qinglong.worker_sessions h WHERE h.worker_id = w.id),
       coalesce(jsonb_agg(DISTINCT s.labels) FILTER (WHERE s.id IS NOT NULL), '[]'::jsonb),
       {{now_ms}} - (SELECT max(h.heartbeat_at_ms) FROM qinglong.worker_sessions h WHERE h.worker_id = w.id),
       {{now_ms}} - max(s.heartbeat_at_ms),
       coalesce(jsonb_agg(DISTINCT to_jsonb(s.reads)) FILTER (WHERE s.id IS NOT NULL), '[]'::jsonb)
  FROM qinglong.workers w
  LEFT JOIN qinglong.worker_sessions s
         ON s.worker_id = w.id AND w.state <> 'revoked' AND s.state IN ('active', 'draining') AND s.lease_expires_at_ms > {{now_ms}}
 GROUP BY w.id
 ORDER BY w.name

-- name: WorkerRevoke
-- Revokes a credential. Authentication refuses it from the next request
-- on, and a revoked worker's sessions get no work; revoking twice keeps the
-- first revocation time. Returns nothing when no worker has the name, else
-- the revocation's time and whether it is this statement's (an earlier
-- one kept its own time).
UPDATE qinglong.workers w
   SET state = 'revoked',
       revoked_at_ms = coalesce(w.revoked_at_ms, n.ms),
       updated_at_ms = greatest(w.updated_at_ms, n.ms)
  FROM (SELECT {{now_ms}} AS ms) n
 WHERE w.name = $1
RETURNING w.revoked_at_ms, w.revoked_at_ms = n.ms

-- name: WorkerRotate
-- Gives a worker that is not revoked a new credential. The one it
-- replaces stays valid for keep_ms of database time from now (0: it is
-- refused from the next request on, and still known, so its refusal
-- counts as an operator's, not a guess); a credential replaced by an
-- earlier rotation is forgotten (one replaced credential at a time).
-- Returns nothing when no worker of the name may rotate (none, or
-- revoked: the caller says which), else until when the replaced
-- credential is valid.
UPDATE qinglong.workers w
   SET previous_credential_sha256   = w.credential_sha256,
       previous_credential_until_ms = n.ms + @keep_ms::bigint,
       credential_sha256            = @credential_sha256,
       updated_at_ms                = greatest(w.updated_at_ms, n.ms)
  FROM (SELECT {{now_ms}} AS ms) n
 WHERE w.name = @name AND w.state <> 'revoked'
RETURNING w.previous_credential_until_ms

-- name: WorkerDrain
-- Drains an active worker: its sessions get no new work, and a session it
-- opens later starts draining. A draining one stays so; a revoked one is
-- left as it is (the caller says so). Returns the state before.
UPDATE qinglong.workers w
   SET state = CASE WHEN w.state = 'active' THEN 'draining' ELSE w.state END,
       updated_at_ms = greatest(w.updated_at_ms, n.ms)
  FROM (SELECT {{now_ms}} AS ms) n, (SELECT state FROM qinglong.workers WHERE name = $1) before
 WHERE w.name = $1
RETURNING before.state

-- name: WorkerResume
-- Returns a draining worker to service: a session it opens from now on
-- takes work. A session already draining stays so and ends once idle (its
-- worker process exits; start it again). An active one stays so; a revoked
-- one is left as it is (the caller says so). Returns the state before.
UPDATE qinglong.workers w
   SET state = CASE WHEN w.state = 'draining' THEN 'active' ELSE w.state END,
       updated_at_ms = greatest(w.updated_at_ms, n.ms)
  FROM (SELECT {{now_ms}} AS ms) n, (SELECT state FROM qinglong.workers WHERE name = $1) before
 WHERE w.name = $1
RETURNING before.state
