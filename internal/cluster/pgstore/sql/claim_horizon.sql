-- name: ClaimHorizon
-- When the next row falls due (its jittered due time, next_fire_at_ms + due_offset_ms), read right after the claim in the same pipeline (claim_horizon.go), so
-- a replica can wake at that instant instead of on its next cadence tick. It decides nothing: the
-- next claim still samples the database clock itself.
--   * the database clock is sampled once and returned, so the replica can measure its own clock's
--     offset from it;
--   * only rows a claim could take without waiting for a lease: unclaimed and schedulable, the
--     predicate of trigger_schedules_unclaimed_order_idx, whose leading column it reads with
--     `> now` and LIMIT 1 — one index descent whatever the table holds (claimhorizon_test.go);
--   * strictly after now: a row already due that the claim did not take is either beyond this
--     page (the lifecycle starts the next round at once), locked by another claimer, or not
--     eligible (an inactive project); none of them may make a replica spin.
SELECT now.ms,
       (SELECT s.next_fire_at_ms + s.due_offset_ms
          FROM qinglong.trigger_schedules s
         WHERE s.claim_owner IS NULL AND s.schedulable AND s.due_offset_ms IS NOT NULL
           AND s.next_fire_at_ms + s.due_offset_ms > now.ms
         ORDER BY s.next_fire_at_ms + s.due_offset_ms NULLS FIRST
         LIMIT 1)
  FROM (SELECT {{now_ms}} AS ms) now
