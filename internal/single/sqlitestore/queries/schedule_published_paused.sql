-- The pause a trigger new to a paused project started with (schedule
-- reset), for its audit record: the note it took and who paused the
-- project. No row when the project is not paused. ?1 trigger id.
SELECT s.pause_note, pp.actor
FROM trigger_schedules s
JOIN project_pauses pp ON pp.project_id = s.project_id
WHERE s.trigger_id = ?1 AND s.paused = 1 AND s.paused_with_project = 1
