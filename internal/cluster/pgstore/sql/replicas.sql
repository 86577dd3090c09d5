-- Replica heartbeats (replicas.go), every time by the database clock.

-- name: ReplicaBeat
-- Upserts this replica's row (runtime role): $1 replica id, $2 host, $3
-- pid, $4 version, $5 time to live in ms, $6 the row's start as the answer
-- to this process's first beat gave it (NULL at that first beat, which
-- (re)starts the row: a replica id reused by a new process gets a new
-- start and loses an old stop). A later beat moves the times on only on
-- the row its own process started and has not marked stopped: it never
-- revives a stopped row, nor writes over a row that another process under
-- the same id restarted since (two replicas given one --replica-id).
-- Answers the row's start when this beat wrote it (NULL when it did not),
-- and the process the row named before the beat and whether it was live.
WITH prior AS (
    SELECT h.host, h.pid, h.stopped_at_ms IS NULL AND h.expires_at_ms > n.ms AS live
      FROM qinglong.replica_heartbeats h, (SELECT {{now_ms}} AS ms) n
     WHERE h.replica_id = $1
),
beat AS (
    INSERT INTO qinglong.replica_heartbeats AS h
           (replica_id, host, pid, version, started_at_ms, last_seen_at_ms, expires_at_ms)
    SELECT $1, $2, $3, $4, n.ms, n.ms, n.ms + $5::bigint
      FROM (SELECT {{now_ms}} AS ms) n
    ON CONFLICT (replica_id) DO UPDATE
       SET host = excluded.host, pid = excluded.pid, version = excluded.version,
           started_at_ms = CASE WHEN $6::bigint IS NULL THEN excluded.started_at_ms ELSE h.started_at_ms END,
           last_seen_at_ms = greatest(excluded.last_seen_at_ms, h.started_at_ms),
           expires_at_ms = greatest(excluded.expires_at_ms, h.started_at_ms + 1),
           stopped_at_ms = NULL
     WHERE $6::bigint IS NULL OR (h.stopped_at_ms IS NULL AND h.started_at_ms = $6::bigint)
    RETURNING h.started_at_ms
)
SELECT (SELECT started_at_ms FROM beat), p.host, p.pid, coalesce(p.live, false)
  FROM (SELECT 1) one
  LEFT JOIN prior p ON true

-- name: ReplicaStopped
-- Marks this replica's row stopped (runtime role), at its graceful stop:
-- $1 replica id, $2 the row's start this process's beats kept. A row
-- another process under the same id restarted is not its to stop.
UPDATE qinglong.replica_heartbeats
   SET stopped_at_ms = greatest({{now_ms}}, started_at_ms)
 WHERE replica_id = $1 AND started_at_ms = $2 AND stopped_at_ms IS NULL

-- name: ReplicaList
-- The replicas seen within the last $1 ms and not stopped, live ones first
-- (not expired by the database clock), at most $2.
SELECT replica_id, host, pid, version, started_at_ms, last_seen_at_ms, expires_at_ms,
       expires_at_ms > n.ms AS live
  FROM qinglong.replica_heartbeats, (SELECT {{now_ms}} AS ms) n
 WHERE stopped_at_ms IS NULL AND last_seen_at_ms > n.ms - $1::bigint
 ORDER BY live DESC, host, replica_id
 LIMIT $2

-- name: ReplicaPrune
-- Deletes (maintenance role) rows stopped or expired more than $1 ms ago,
-- at most $2: what a crashed or stopped replica left behind. The outer
-- condition is checked again on a row a new process under the same id
-- revived meanwhile, which then stays.
DELETE FROM qinglong.replica_heartbeats
 WHERE coalesce(stopped_at_ms, expires_at_ms) < {{now_ms}} - $1::bigint
   AND replica_id IN (SELECT replica_id FROM qinglong.replica_heartbeats
                       WHERE coalesce(stopped_at_ms, expires_at_ms) < {{now_ms}} - $1::bigint
                       LIMIT $2)

-- name: ReplicaClusterLastSeen
-- What an activation reads before it opens admission (runtime role): the
-- database clock, the newest moment any replica was seen (its last beat,
-- or its stop), whether any worker session is live or any attempt is
-- granted or running in the database — each an EXISTS over a partial
-- index of live rows, so the read does not grow with history — and the
-- end of a hold for workers still in force (NULL when none is). The hold
-- is read in the same snapshot as the live rows: a replica records it
-- before its startup recovery marks them expired, so a read that no
-- longer sees them sees the hold.
SELECT n.ms,
       (SELECT max(greatest(h.last_seen_at_ms, coalesce(h.stopped_at_ms, h.last_seen_at_ms)))
          FROM qinglong.replica_heartbeats h),
       EXISTS (SELECT 1 FROM qinglong.worker_sessions s WHERE s.state IN ('active', 'draining')),
       EXISTS (SELECT 1 FROM qinglong.attempts a
                WHERE a.state IN ('claimed', 'starting', 'running') AND a.session_id IS NOT NULL),
       (SELECT w.until_ms FROM qinglong.workers_hold w WHERE w.until_ms > n.ms)
  FROM (SELECT {{now_ms}} AS ms) n

-- name: WorkersHoldRecord
-- Records a hold for workers (runtime role) before the startup recovery
-- that erases the live rows it was decided on: $1 replica id, $2 its
-- length in ms. A hold still in force is lengthened, never shortened.
-- Answers the database clock and the hold's end.
INSERT INTO qinglong.workers_hold AS w (only_row, replica_id, decided_at_ms, until_ms)
SELECT true, $1, n.ms, n.ms + $2::bigint
  FROM (SELECT {{now_ms}} AS ms) n
ON CONFLICT (only_row) DO UPDATE
   SET replica_id = excluded.replica_id, decided_at_ms = excluded.decided_at_ms,
       until_ms = greatest(excluded.until_ms, CASE WHEN w.until_ms > excluded.decided_at_ms THEN w.until_ms END)
RETURNING w.decided_at_ms, w.until_ms
