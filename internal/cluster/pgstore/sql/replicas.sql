-- Replica heartbeats (replicas.go), every time by the database clock.

-- name: ReplicaBeat
-- Upserts this replica's row (runtime role): $1 replica id, $2 host, $3
-- pid, $4 version, $5 time to live in ms, $6 true at the first beat of a
-- process, which (re)starts the row: a replica id reused by a new process
-- gets a new start and loses an old stop. A later beat only moves the
-- times on, and never revives a row its process marked stopped.
INSERT INTO qinglong.replica_heartbeats AS h
       (replica_id, host, pid, version, started_at_ms, last_seen_at_ms, expires_at_ms)
SELECT $1, $2, $3, $4, n.ms, n.ms, n.ms + $5::bigint
  FROM (SELECT {{now_ms}} AS ms) n
ON CONFLICT (replica_id) DO UPDATE
   SET host = excluded.host, pid = excluded.pid, version = excluded.version,
       started_at_ms = CASE WHEN $6::boolean THEN excluded.started_at_ms ELSE h.started_at_ms END,
       last_seen_at_ms = greatest(excluded.last_seen_at_ms, h.started_at_ms),
       expires_at_ms = greatest(excluded.expires_at_ms, h.started_at_ms + 1),
       stopped_at_ms = NULL
 WHERE $6::boolean OR h.stopped_at_ms IS NULL

-- name: ReplicaStopped
-- Marks this replica's row stopped (runtime role), at its graceful stop.
UPDATE qinglong.replica_heartbeats
   SET stopped_at_ms = greatest({{now_ms}}, started_at_ms)
 WHERE replica_id = $1 AND stopped_at_ms IS NULL

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
