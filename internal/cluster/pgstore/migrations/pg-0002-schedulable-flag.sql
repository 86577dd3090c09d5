-- pg-0002: trigger_schedules.schedulable — the claim's eligibility (active
-- project, current enabled cron revision pinned to its task's current
-- revision), kept by every publishing transaction, so the claim's index
-- holds only rows a claim could take.
--
-- Why: disabling a trigger resets its cursor to NULL, which sorts first in
-- the claim order, and an archived project's or an unpinned trigger's rows
-- keep theirs; every claim walked all of them before the first eligible
-- row (10,000 disabled triggers: 10,032 rows and ~100,000 buffers read per
-- claim, every round, on every replica).
--
-- The flag is an index filter only, never a fence: the claim and the
-- admission still verify eligibility through the joins, so a flag that is
-- true too long costs a read, never a wrong Run. It must never be false for
-- an eligible row (that row would never fire); publishing recomputes it in
-- the same transaction as the change (sqlScheduleEligibilityRefresh).

ALTER TABLE qinglong.trigger_schedules ADD COLUMN schedulable boolean NOT NULL DEFAULT true;

UPDATE qinglong.trigger_schedules s
   SET schedulable = false
 WHERE NOT EXISTS (
        SELECT 1
          FROM qinglong.projects p
          JOIN qinglong.triggers tg ON tg.id = s.trigger_id AND tg.current_revision = s.trigger_revision
          JOIN qinglong.trigger_revisions tr ON tr.trigger_id = s.trigger_id AND tr.revision = s.trigger_revision
                                            AND tr.enabled AND tr.kind = 'qinglong/cron@v1'
          JOIN qinglong.tasks tk ON tk.id = tr.task_id AND tk.current_revision = tr.task_revision
         WHERE p.id = s.project_id AND p.status = 'active');

-- Claim index 1, now without the rows no claim could take.
DROP INDEX qinglong.trigger_schedules_unclaimed_order_idx;
CREATE INDEX trigger_schedules_unclaimed_order_idx
    ON qinglong.trigger_schedules (next_fire_at_ms NULLS FIRST, project_id, trigger_id)
    WHERE claim_owner IS NULL AND schedulable;
