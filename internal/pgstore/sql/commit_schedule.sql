-- Admission final step (SPEC §6): advance the cursor and clear the claim,
-- guarded by the full fence — revision, state version, cursor, owner, token,
-- claim version, expiry and acquired time — and by the database clock still
-- being before the expiry at this last statement. The caller requires
-- exactly one row; anything else rolls the whole transaction back.
-- $1 trigger, $2 revision, $3 state version, $4 cursor (NULL allowed),
-- $5 owner, $6 token, $7 claim version, $8 expiry, $9 acquired,
-- $10 new cursor, $11 last scheduled (NULL keeps it), $12 the ctid the
-- lock statement locked (tuple-level predicate lock only, see handles.go).
UPDATE qinglong.trigger_schedules s
   SET next_fire_at_ms = $10,
       last_scheduled_at_ms = coalesce($11, s.last_scheduled_at_ms),
       state_version = s.state_version + 1,
       claim_owner = NULL,
       claim_token = NULL,
       claim_expires_at_ms = NULL,
       updated_at_ms = greatest(s.updated_at_ms, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
 WHERE s.ctid = $12::tid
   AND s.trigger_id = $1
   AND s.trigger_revision = $2
   AND s.state_version = $3
   AND s.next_fire_at_ms IS NOT DISTINCT FROM $4
   AND s.claim_owner = $5
   AND s.claim_token = $6
   AND s.claim_version = $7
   AND s.claim_expires_at_ms = $8
   AND s.updated_at_ms = $9
   AND s.claim_expires_at_ms > (extract(epoch FROM clock_timestamp()) * 1000)::bigint
