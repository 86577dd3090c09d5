-- Starting a trigger's schedule at a position handed over from another
-- database (internal/core/schedule/adopt.go): one SERIALIZABLE transaction
-- as the admin role, the read and then the write (adopt.go).

-- name: AdoptRead
-- Whether the trigger's schedule row has decided an occurrence in this
-- database: it admitted one (last_scheduled_at_ms, kept across publishes)
-- or passed one over (the ledger, or its compacted totals). Such a row's
-- schedule runs here, and a handed-over position must not move its
-- cursor. No row: no such trigger. Also the position adopted before, if
-- any, and the cursor: the same position adopted again changes nothing.
-- Fence: FOR UPDATE OF s. An admission or a claim of the row waits for
-- this transaction, and finds the adopted cursor and a new state_version.
SELECT s.last_scheduled_at_ms IS NOT NULL
       OR EXISTS (SELECT 1 FROM qinglong.occurrence_ledger l WHERE l.trigger_id = s.trigger_id)
       OR EXISTS (SELECT 1 FROM qinglong.occurrence_ledger_compacted c WHERE c.trigger_id = s.trigger_id),
       s.adopted_cursor_ms, s.next_fire_at_ms
  FROM qinglong.trigger_schedules s
 WHERE s.trigger_id = $1
   FOR UPDATE OF s

-- name: AdoptWrite
-- Writes the handed-over cursor ($2) and its jitter ($3) of the row
-- AdoptRead locked ($1) and found undecided. A claim taken before is
-- given back (claim_version is kept, as after ClaimRelease) and
-- state_version bumped, so a holder deciding on the old ticket fails its
-- own fence at commit and writes nothing. updated_at_ms is the database
-- clock, as every writer's. Fence: last_scheduled_at_ms still NULL, as
-- AdoptRead read it under the row lock. Returns the row's trigger id.
UPDATE qinglong.trigger_schedules s
   SET next_fire_at_ms = $2,
       due_offset_ms = $3,
       adopted_cursor_ms = $2,
       claim_owner = NULL,
       claim_token = NULL,
       claim_expires_at_ms = NULL,
       state_version = s.state_version + 1,
       updated_at_ms = greatest(s.updated_at_ms, {{now_ms}})
 WHERE s.trigger_id = $1
   AND s.last_scheduled_at_ms IS NULL
RETURNING s.trigger_id
