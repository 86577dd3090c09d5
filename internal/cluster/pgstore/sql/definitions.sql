-- Statements of an export: a project's definitions read whole, by the
-- admin or the runtime role (both may read the catalog), in one snapshot.
-- Names sort bytewise (COLLATE "C"), as the embedded database sorts them.

-- name: TasksOfProject
-- The current revisions of a project's tasks, the first $2 by name, read
-- through their heads.
SELECT r.task_id, r.project_id, r.revision, r.name, r.enabled, r.labels, r.command, r.content_digest, r.mutation_id, r.created_at_ms
  FROM qinglong.tasks t JOIN qinglong.task_revisions r ON r.task_id = t.id AND r.revision = t.current_revision
 WHERE t.project_id = $1
 ORDER BY t.name COLLATE "C"
 LIMIT $2

-- name: TriggersOfProject
-- The current revisions of a project's triggers, the first $2 by name,
-- read through their heads.
SELECT r.trigger_id, r.project_id, r.task_id, r.revision, r.task_revision, r.task_content_digest, r.name, r.enabled,
       r.cron_expression, r.cron_timezone, r.misfire_policy, r.content_digest, r.mutation_id, r.created_at_ms,
       r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy
  FROM qinglong.triggers t JOIN qinglong.trigger_revisions r ON r.trigger_id = t.id AND r.revision = t.current_revision
 WHERE t.project_id = $1
 ORDER BY t.name COLLATE "C"
 LIMIT $2

-- name: ProjectNames
-- The first $1 projects in name order past the name $3 ('' from the
-- first: a page's cursor), each with its id, display title, status and
-- whether it is paused as a whole, for `ql projects list`, the API's
-- listing, a message naming the projects that exist and the console's
-- pickers. $2 is the names of the projects a bound token or console user
-- may see (NULL every project), filtered before the limit cuts, so that
-- the list is full of theirs however many other projects sort first.
SELECT p.id::text, p.name, p.title, p.status, coalesce(pp.paused, false)
  FROM qinglong.projects p LEFT JOIN qinglong.project_pauses pp ON pp.project_id = p.id
 WHERE ($2::text[] IS NULL OR p.name = ANY($2::text[]))
   AND ($3::text = '' OR p.name COLLATE "C" > $3::text COLLATE "C")
 ORDER BY p.name COLLATE "C" LIMIT $1

-- name: ProjectNameByID
-- The name of the project with an id, for an address naming a project by
-- its id.
SELECT name FROM qinglong.projects WHERE id = $1
