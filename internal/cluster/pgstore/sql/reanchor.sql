-- The check for cursors a database clock set back left ahead
-- (internal/core/schedule/clockback.go): one READ COMMITTED transaction
-- per check, the read and then the write (reanchor.go).

-- name: ReanchorRead
-- The schedule rows last written while the database clock read later than
-- it reads now (updated_at_ms after the clock, sampled once: the
-- MATERIALIZED CTE `now`, which every row is decided at), of triggers a
-- claim may take once they are not paused (fragments.sql, Schedulable): a
-- paused row is moved too, so that its resume finds the cursor a decision
-- made now would give it, as on a single node. With the columns of a
-- claim's ticket.
-- Fence: FOR UPDATE OF s SKIP LOCKED. A row an admission or a publish
-- holds is left to the next check, which finds it still written later
-- unless that write moved it; a row locked here stays as read until
-- ReanchorWrite, in the same transaction, writes it.
-- No index leads with updated_at_ms, so this reads every schedule row: it
-- runs once a minute per replica (schedule.ClockCheckEvery), and matches
-- nothing while the clock keeps going forward. An index would cost every
-- claim and commit, which all write updated_at_ms, far more.
WITH now AS MATERIALIZED (
    SELECT {{now_ms}} AS ms
)
SELECT s.project_id, s.trigger_id, s.trigger_revision, tr.content_digest, tr.created_at_ms,
       tr.cron_expression, tr.cron_timezone, tr.misfire_policy,
       tr.jitter_ms, tr.start_at_ms, tr.end_at_ms, tr.catch_up_window_ms, tr.overlap_policy,
       tr.task_id, tr.task_revision, tr.task_content_digest,
       s.next_fire_at_ms, s.last_scheduled_at_ms, s.state_version,
       s.claim_owner IS NOT NULL, now.ms, s.paused_at_ms, s.resumed_at_ms
  FROM now
  JOIN qinglong.trigger_schedules s ON s.updated_at_ms > now.ms
  JOIN qinglong.trigger_revisions tr ON tr.trigger_id = s.trigger_id AND tr.revision = s.trigger_revision
 WHERE {{Schedulable}}
 ORDER BY s.trigger_id
   FOR UPDATE OF s SKIP LOCKED

-- name: ReanchorWrite
-- Writes what the check decided for the rows ReanchorRead locked: a row
-- whose cursor moves back gets its new cursor and jitter; a row whose
-- cursor stays but that holds a claim taken while the clock read later
-- (its lease would run out only once the clock got back there: a replica
-- that died holding it would keep it that long) only gives the claim back.
-- Either way the claim is cleared (claim_version is kept: the next claim
-- counts on from it, as after ClaimRelease), state_version is bumped, so a
-- holder still deciding on the old ticket fails its own fence at commit and
-- writes nothing, and updated_at_ms is set to the clock, so the row is
-- written later no more and the next check leaves it.
-- Fence: state_version still the one ReanchorRead returned. The row lock
-- taken there already keeps it so; the fence makes the write say what it
-- relies on, and write nothing for a row it does not hold.
-- $1 trigger ids, $2 the state versions read, $3 whether the cursor moves,
-- $4 the new cursors, $5 their jitter offsets (both ignored where $3 is
-- false), index-aligned. Returns the ids of the rows written.
WITH now AS MATERIALIZED (
    SELECT {{now_ms}} AS ms
)
UPDATE qinglong.trigger_schedules s
   SET next_fire_at_ms = CASE WHEN i.moves THEN i.next_cursor ELSE s.next_fire_at_ms END,
       due_offset_ms = CASE WHEN i.moves THEN i.next_due_offset_ms ELSE s.due_offset_ms END,
       claim_owner = NULL,
       claim_token = NULL,
       claim_expires_at_ms = NULL,
       state_version = s.state_version + 1,
       updated_at_ms = now.ms
  FROM now, unnest($1::uuid[], $2::bigint[], $3::boolean[], $4::bigint[], $5::bigint[])
       AS i (trigger_id, state_version, moves, next_cursor, next_due_offset_ms)
 WHERE s.trigger_id = i.trigger_id
   AND s.state_version = i.state_version
RETURNING s.trigger_id
