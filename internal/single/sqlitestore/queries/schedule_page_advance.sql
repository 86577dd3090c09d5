-- Moves the cursors of a page's verified decisions in one statement, each
-- row guarded by its own whole local fence (revision, state_version,
-- cursor) exactly as schedule_advance_admitted and schedule_advance_cursor
-- guard one. ?1 is a JSON array with one [trigger id, revision, state
-- version, fenced cursor, new cursor, new cursor's jitter, scheduled time]
-- per decision (the fenced cursor null for an uninitialised row, the jitter
-- null when the row ended, the scheduled time null unless the decision
-- admits: last_scheduled_at_ms changes only on admit, and never moves back,
-- as schedule.LastAdmitted says); ?2 is the page's time. It returns the
-- rows it moved: a decision missing from the answer lost its fence, and
-- nothing else of it is written.
UPDATE trigger_schedules AS s
SET next_fire_at_ms = v.next_cursor,
    last_scheduled_at_ms = coalesce(max(s.last_scheduled_at_ms, v.scheduled_for_ms), v.scheduled_for_ms, s.last_scheduled_at_ms),
    state_version = s.state_version + 1,
    updated_at_ms = ?2,
    due_offset_ms = v.due_offset_ms
FROM (SELECT value ->> 0 AS trigger_id, value ->> 1 AS trigger_revision, value ->> 2 AS state_version,
             value ->> 3 AS cursor, value ->> 4 AS next_cursor, value ->> 5 AS due_offset_ms,
             value ->> 6 AS scheduled_for_ms
      FROM jsonb_each(?1)) AS v
WHERE s.trigger_id = v.trigger_id AND s.trigger_revision = v.trigger_revision
  AND s.state_version = v.state_version AND s.next_fire_at_ms IS v.cursor
RETURNING trigger_id
