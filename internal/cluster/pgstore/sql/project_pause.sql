-- name: ProjectPauseRead
-- A project's identity, status and pause state: for the pages that show
-- it, and in the SERIALIZABLE transaction of a change that follows: two
-- changes of one project racing conflict there, and one of them is
-- retried (the runtime role may not lock a project row). $1 its name or
-- id (an id wins over a name that happens to be spelt as another
-- project's id).
SELECT p.id::text, p.name, p.status = 'archived', coalesce(pp.paused, false), pp.note, pp.actor, pp.at_ms
  FROM qinglong.projects p
  LEFT JOIN qinglong.project_pauses pp ON pp.project_id = p.id
 WHERE p.name = $1 OR p.id::text = $1
 ORDER BY p.id::text = $1 DESC
 LIMIT 1

-- name: ProjectPauseWrite
-- Records a project's pause ($2 true, with its note) or resume ($2 false,
-- no note), who asked and when ($5, the time its triggers' changes
-- returned): the row holds the newest of them. $1 project id.
INSERT INTO qinglong.project_pauses (project_id, paused, note, actor, at_ms)
VALUES ($1::uuid, $2, $3, $4, $5)
    ON CONFLICT (project_id) DO UPDATE SET
       paused = EXCLUDED.paused, note = EXCLUDED.note, actor = EXCLUDED.actor, at_ms = EXCLUDED.at_ms

-- name: ProjectPauseUnpaused
-- The schedule rows of a project not paused, which its pause pauses,
-- locked in trigger order (the order every writer of schedule rows locks
-- them in). $1 project id.
SELECT trigger_id::text
  FROM qinglong.trigger_schedules
 WHERE project_id = $1::uuid AND NOT paused
 ORDER BY trigger_id
   FOR UPDATE

-- name: ProjectPauseTheirs
-- The schedule rows of a project whose pause in force is the project's,
-- which its resume resumes, locked in trigger order. $1 project id.
SELECT trigger_id::text
  FROM qinglong.trigger_schedules
 WHERE project_id = $1::uuid AND paused AND paused_with_project
 ORDER BY trigger_id
   FOR UPDATE

-- name: ProjectPauseKept
-- How many schedule rows of a project stay paused on their own once its
-- pause is resumed. $1 project id.
SELECT count(*)
  FROM qinglong.trigger_schedules
 WHERE project_id = $1::uuid AND paused AND NOT paused_with_project

-- name: SchedulePauseMark
-- Marks the pause a project's pause just gave a schedule row as the
-- project's, so that the project's resume resumes it. $1 trigger id.
UPDATE qinglong.trigger_schedules
   SET paused_with_project = true
 WHERE trigger_id = $1 AND paused

-- name: SchedulePauseOwn
-- A trigger paused on its own while its project's pause holds it: the
-- pause becomes the trigger's own, with its note, so the project's resume
-- leaves it paused. The pause span is the one in force (nothing fell due
-- unpaused), so the ledger's account of it is unchanged; the row stays
-- unschedulable. Returns the time of the change, its audit record's.
-- $1 trigger id, $2 note (NULL for none).
UPDATE qinglong.trigger_schedules
   SET paused_with_project = false, pause_note = $2
 WHERE trigger_id = $1 AND paused AND paused_with_project
RETURNING {{now_ms}}
