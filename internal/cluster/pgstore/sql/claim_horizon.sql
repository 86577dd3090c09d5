-- name: ClaimSettings
-- The claim's pipeline runs behind this instead of GenericPlans
-- (admission.sql): the same cached generic plan, and JIT off. On a large
-- table the planner's estimate of the claim passes jit_above_cost, and
-- compiling its expressions, which PostgreSQL does again at every
-- execution, costs tens to hundreds of milliseconds for a statement that
-- runs in a few. Only the claim's: measured black-box, the page lock's
-- plan with JIT off read every Run for every group (18,000 buffers and
-- 476 ms a group against 1,400 and 25 ms), so the admission keeps the
-- server's JIT setting.
SELECT set_config('plan_cache_mode', 'force_generic_plan', true), set_config('jit', 'off', true)

-- name: ClaimHorizon
-- When the next row falls due (its jittered due time, next_fire_at_ms + due_offset_ms), read right after the claim in the same pipeline (claim_horizon.go), so
-- a replica can wake at that instant instead of on its next cadence tick. It decides nothing: the
-- next claim still samples the database clock itself.
--   * the database clock is sampled once and returned, so the replica can measure its own clock's
--     offset from it;
--   * only rows a claim could take without waiting for a lease: unclaimed and schedulable, the
--     predicate of trigger_schedules_unclaimed_order_idx, whose leading column it reads with
--     `>` and LIMIT 1 — one index descent whatever the table holds (claimhorizon_test.go);
--   * strictly after the instant the pipeline began (its implicit transaction's start, which
--     precedes the claim's own clock reading): a row already due then that the claim did not take
--     is beyond this page (the lifecycle starts the next round at once), locked by another
--     claimer, or not eligible (an inactive project), and none of them may make a replica spin. A
--     row that fell due while the pipeline ran is reported, due already: the claim may have read
--     the clock before that instant, and a replica that woke a little early would otherwise see
--     none of the boundary's rows in its horizon and sleep a whole cadence past it. It can cost
--     one extra claim, never a spin: the next pipeline begins after that row's instant.
SELECT now.ms,
       (SELECT s.next_fire_at_ms + s.due_offset_ms
          FROM qinglong.trigger_schedules s
         WHERE s.claim_owner IS NULL AND s.schedulable AND s.due_offset_ms IS NOT NULL
           AND s.next_fire_at_ms + s.due_offset_ms > (extract(epoch FROM transaction_timestamp()) * 1000)::bigint
         ORDER BY s.next_fire_at_ms + s.due_offset_ms NULLS FIRST
         LIMIT 1)
  FROM (SELECT {{now_ms}} AS ms) now
