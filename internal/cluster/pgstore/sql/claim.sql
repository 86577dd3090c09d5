-- name: Claim
-- Row-lease claim (docs/architecture.md, "Claim"): one autocommit statement (pipelined behind the
-- setting that selects its generic plan, see claim.go).
-- Fences and invariants:
--   * the database clock is sampled exactly once (MATERIALIZED CTE `now`)
--     and is the claim's acquired time, its expiry base and updated_at_ms;
--   * only rows of active projects whose current trigger revision is an
--     enabled cron trigger pinned to its task's current revision (verified
--     per row by a scalar subquery of primary-key lookups, true or NULL,
--     fragments.sql, Schedulable;
--     `schedulable`, kept by publishing, only keeps the rows that fail it
--     out of branches A and B's index, pg-0002). A subquery, not joins:
--     joined, the planner estimates the eligible rows from the definition
--     tables' statistics, which a fresh installation lacks (autovacuum
--     never analyzes a table of fewer than 50 rows, e.g. its projects), and
--     from correlated equalities it multiplies as if independent; it then
--     reckons a handful of due rows, joins and sorts every one of them and
--     cuts the page from the sort — 10,000 rows read per claim of a burst
--     of 10,000. A scalar subquery is never flattened into a join, so each
--     branch can only walk its index in claim order and stop at the page;
--   * only rows without a live claim: unclaimed, or claimed and expired;
--   * never a paused row: `NOT s.paused` in every branch is the
--     fence, `schedulable` (false while paused) keeps them out of the index;
--   * FOR UPDATE OF s SKIP LOCKED in every branch: two claimers never take
--     the same row (EvalPlanQual re-checks the claim and due conditions on a
--     row that changed under us), and concurrent claimers skip each other's
--     candidates instead of all competing for the same first rows;
--   * O(claimed) reads: each branch walks its own index in its own order
--     and stops after $2 eligible, lockable rows:
--       A  uninitialised (NULL cursor), unclaimed  -> trigger_schedules_unclaimed_order_idx
--       B  due (jittered due time, by due_by), unclaimed -> trigger_schedules_unclaimed_order_idx
--       C  expired claims (due by due_by)          -> trigger_schedules_claim_expiry_idx
--     (a row falls due at its cursor's jittered due time, next_fire_at_ms
--     + due_offset_ms, the index's leading expression (migration
--     trigger-policies); `<= now` never matches NULL, hence A; an ended
--     row, a cursor with a NULL offset, is in no branch and not in the
--     index; live claims are in neither index A/B reads, hence C reads
--     only expired ones);
--   * the union (at most 3 x $2 locked rows) is re-sorted into claim order
--     and cut to $2; rows locked but not chosen are released at the end of
--     this autocommit statement, untouched.
--   * claim ahead (docs/architecture.md, "Claim ahead"): branches B and C
--     also take rows that fall due after the clock but at or before
--     `due_by`, the instant $4 names (0: none, `due_by` is the clock), never
--     more than half a lease ahead of the clock, so a claim taken ahead
--     still has half its lease left at the row's due time. The lease starts
--     at the clock as for any claim; the decision is made at the row's due
--     time and admitted only once the database clock has reached it
--     (commit_verify.go).
-- $1 owner, $2 limit, $3 lease in milliseconds, $4 the instant to claim
-- ahead to (0: none).
WITH now AS MATERIALIZED (
    SELECT c.ms, greatest(c.ms, least($4::bigint, c.ms + $3::bigint / 2)) AS due_by
      FROM (SELECT {{now_ms}} AS ms) c
),
uninitialised AS (
     SELECT s.trigger_id, s.next_fire_at_ms + s.due_offset_ms AS due_at_ms, s.project_id
       FROM qinglong.trigger_schedules s
      WHERE {{Schedulable}}
        AND s.claim_owner IS NULL AND s.schedulable AND NOT s.paused AND s.next_fire_at_ms IS NULL
        AND (s.next_fire_at_ms + s.due_offset_ms) IS NULL
      ORDER BY s.next_fire_at_ms + s.due_offset_ms NULLS FIRST, s.project_id, s.trigger_id
      LIMIT $2
        FOR UPDATE OF s SKIP LOCKED
),
due AS (
     SELECT s.trigger_id, s.next_fire_at_ms + s.due_offset_ms AS due_at_ms, s.project_id
       FROM qinglong.trigger_schedules s
      WHERE {{Schedulable}}
        AND s.claim_owner IS NULL AND s.schedulable AND NOT s.paused AND s.due_offset_ms IS NOT NULL
        AND s.next_fire_at_ms + s.due_offset_ms <= (SELECT due_by FROM now)
      ORDER BY s.next_fire_at_ms + s.due_offset_ms NULLS FIRST, s.project_id, s.trigger_id
      LIMIT $2
        FOR UPDATE OF s SKIP LOCKED
),
expired AS (
     SELECT s.trigger_id, s.next_fire_at_ms + s.due_offset_ms AS due_at_ms, s.project_id
       FROM qinglong.trigger_schedules s
      WHERE {{Schedulable}}
        AND s.claim_owner IS NOT NULL AND s.claim_expires_at_ms <= (SELECT ms FROM now) AND NOT s.paused
        AND (s.next_fire_at_ms IS NULL OR s.next_fire_at_ms + s.due_offset_ms <= (SELECT due_by FROM now))
      ORDER BY s.claim_expires_at_ms, s.trigger_id
      LIMIT $2
        FOR UPDATE OF s SKIP LOCKED
),
chosen AS (
     SELECT c.trigger_id
       FROM (SELECT * FROM uninitialised UNION ALL SELECT * FROM due UNION ALL SELECT * FROM expired) c
      ORDER BY c.due_at_ms NULLS FIRST, c.project_id, c.trigger_id
      LIMIT $2
)
UPDATE qinglong.trigger_schedules s
   SET claim_owner = $1,
       claim_token = gen_random_uuid(),
       claim_version = s.claim_version + 1,
       claim_expires_at_ms = now.ms + $3,
       state_version = s.state_version + 1,
       updated_at_ms = now.ms
  FROM chosen, now, qinglong.trigger_revisions tr
 WHERE s.trigger_id = chosen.trigger_id
   AND tr.trigger_id = s.trigger_id AND tr.revision = s.trigger_revision
RETURNING s.project_id, s.trigger_id, s.trigger_revision, tr.content_digest, tr.created_at_ms,
          tr.cron_expression, tr.cron_timezone, tr.misfire_policy,
          tr.jitter_ms, tr.start_at_ms, tr.end_at_ms, tr.catch_up_window_ms, tr.overlap_policy,
          tr.task_id, tr.task_revision, tr.task_content_digest,
          s.next_fire_at_ms, s.last_scheduled_at_ms, s.state_version,
          s.claim_owner, s.claim_token, s.claim_version, s.claim_expires_at_ms, s.updated_at_ms, s.ctid,
          s.paused_at_ms, s.resumed_at_ms

-- name: ClaimRelease
-- Gives back claims this replica took and will not commit (a stopping
-- replica's pages: docs/architecture.md, "Claim"), so that another replica
-- can claim the rows at once instead of after the lease. One autocommit
-- statement for the whole set.
-- Fence: a row is released only while its claim is still exactly the one
-- the ticket took — the same owner, token, claim version and state version.
-- A claim that was committed (the commit clears the token and bumps the
-- state version), expired and taken over (a new token and versions, even
-- under the same owner name: a restarted replica reuses it), or cleared by
-- a publish or a pause (each bumps the state version) is left as it is.
-- A claim that expired and that nobody took over is released like a live
-- one: it was ours, and an unclaimed row is what the next claim reads
-- either way.
-- The release bumps state_version, so a commit of the released ticket (by
-- any code path still holding it) is refused by its own fence. Rows are
-- reached by primary key, one lookup per ticket.
-- $1 trigger ids, $2 owners, $3 tokens, $4 claim versions, $5 state
-- versions, index-aligned. Returns how many rows were released.
WITH released AS (
    UPDATE qinglong.trigger_schedules s
       SET claim_owner = NULL,
           claim_token = NULL,
           claim_expires_at_ms = NULL,
           state_version = s.state_version + 1,
           updated_at_ms = greatest(s.updated_at_ms, {{now_ms}})
      FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::bigint[], $5::bigint[])
           AS r (trigger_id, claim_owner, claim_token, claim_version, state_version)
     WHERE s.trigger_id = r.trigger_id
       AND s.claim_owner = r.claim_owner
       AND s.claim_token = r.claim_token
       AND s.claim_version = r.claim_version
       AND s.state_version = r.state_version
    RETURNING 1
)
SELECT count(*) FROM released
