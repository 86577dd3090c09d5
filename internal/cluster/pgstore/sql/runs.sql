-- Run and trigger reads for the runtime role (SELECT on runs, attempts,
-- run_events and the definitions).

-- fragment: RunSelect
-- The columns of a run, before the FROM of RunColumns or RunColumnsHeldBy,
-- after which the listing composes its filters (runs.go). The names are scalar subqueries by primary key rather
-- than joins, so the listing filters stay unqualified and keep their indexes.
-- The column after rerun_of is the request that admitted the Run, as its
-- run.created event records it (NULL for the clock's): one probe of
-- run_events' key. The next three come from the Run's latest attempt, one
-- probe of attempts' (run_id, number) key: how a Run that failed, timed
-- out or was lost ended (its error and exit codes), so a listing says it
-- without reading each Run again, and the name of the worker that holds
-- or held it. The lateral's columns are named apart from runs' own, so
-- the filters stay unqualified.
-- After them, the trigger's display title now (a title is the trigger's,
-- not a revision's): one probe of triggers' key. Last, a finished Run's
-- attempts' own run times added up (run.Run.RanMs): a range of attempts'
-- (run_id, number) key, the Run's few attempts.
SELECT id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
       idempotency_key, scheduled_for_ms, due_at_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms,
       (SELECT p.name FROM qinglong.projects p WHERE p.id = runs.project_id),
       (SELECT tr.name FROM qinglong.trigger_revisions tr WHERE tr.trigger_id = runs.trigger_id AND tr.revision = runs.trigger_revision),
       (SELECT k.name FROM qinglong.task_revisions k WHERE k.task_id = runs.task_id AND k.revision = runs.task_revision),
       rerun_of,
       (SELECT e.payload->>'manual' FROM qinglong.run_events e WHERE e.run_id = runs.id AND e.seq = 1),
       CASE WHEN state IN ('failed', 'timed_out', 'lost') THEN latest.last_error_code END,
       CASE WHEN state IN ('failed', 'timed_out', 'lost') THEN latest.last_exit_code END,
       latest.last_worker_name,
       (SELECT tg.title FROM qinglong.triggers tg WHERE tg.id = runs.trigger_id),
       CASE WHEN finished_at_ms IS NOT NULL THEN (SELECT sum(a.finished_at_ms - a.started_at_ms)::bigint FROM qinglong.attempts a
                                                   WHERE a.run_id = runs.id AND a.started_at_ms IS NOT NULL AND a.finished_at_ms IS NOT NULL) END

-- fragment: RunLatest
-- The latest attempt of the Run in "runs", for RunSelect's last columns.
  LEFT JOIN LATERAL (
       SELECT a.error_code AS last_error_code, a.exit_code::bigint AS last_exit_code,
              (SELECT w.name FROM qinglong.workers w WHERE w.id = a.worker_id) AS last_worker_name
         FROM qinglong.attempts a WHERE a.run_id = runs.id ORDER BY a.number DESC LIMIT 1) latest ON true

-- name: RunColumns
-- The columns of a run (RunSelect) from runs, ending where the listing
-- composes its filters (runs.go).
{{RunSelect}}
  FROM qinglong.runs
{{RunLatest}}

-- name: RunColumnsHeldBy
-- RunColumns of the Runs worker $1 (its id) held an attempt of, newest
-- first and before the cursor $2, for the listing by worker. The worker's
-- attempts are read by attempts_worker_run_idx in the listing's order
-- (held.run_id), one per Run (its latest the worker held, so no DISTINCT
-- has to read them all before the first row), and each Run is fetched by
-- key behind an OFFSET 0 fence: a plan walking the runs key instead (a
-- merge join) would read every newer Run of every other worker first.
-- held names only the columns it needs, so the filters stay unqualified.
{{RunSelect}}
  FROM (SELECT a.run_id, a.worker_id, a.number FROM qinglong.attempts a) held
 CROSS JOIN LATERAL (SELECT * FROM qinglong.runs r WHERE r.id = held.run_id OFFSET 0) runs
{{RunLatest}}
 WHERE held.worker_id = $1 AND held.run_id < $2
   AND NOT EXISTS (SELECT 1 FROM qinglong.attempts later
                    WHERE later.run_id = held.run_id AND later.worker_id = held.worker_id AND later.number > held.number)

-- name: WorkerIDByName
-- The id of the worker a listing by worker names (workers keep their name
-- for ever, revoked too).
SELECT id FROM qinglong.workers WHERE name = $1

-- name: RunAttempts
-- A run's attempts by number, read in the run's snapshot, with the name of
-- the worker that held each (a worker keeps its name for ever, revoked too)
-- and whether retention removed its log: bytes held, no first chunk left.
SELECT a.id, a.run_id, a.number, a.executor, a.state, a.exit_code, a.error_code, a.error_message, w.name,
       a.created_at_ms, a.started_at_ms, a.finished_at_ms, a.log_path, a.log_bytes, a.log_truncated,
       a.log_bytes > 0 AND NOT EXISTS (SELECT 1 FROM qinglong.run_log_chunks c WHERE c.attempt_id = a.id AND c.log_offset = 0)
  FROM qinglong.attempts a LEFT JOIN qinglong.workers w ON w.id = a.worker_id
 WHERE a.run_id = $1 ORDER BY a.number

-- name: RunEvents
-- A run's events by their gap-free sequence, read in the run's snapshot.
SELECT run_id, seq, name, payload::text, created_at_ms FROM qinglong.run_events WHERE run_id = $1 ORDER BY seq

-- name: RunsRerunAs
-- The Runs that re-run a Run, newest first, at most $2, read in the run's
-- snapshot (a Run's page names them: "re-run as"). runs_rerun_of_idx
-- holds only re-runs, and rerun_of = $1 implies its condition.
SELECT id FROM qinglong.runs WHERE rerun_of = $1 ORDER BY id DESC LIMIT $2

-- name: RunProjectArchived
-- The name of a queued Run's project ($1) when that project is archived:
-- Dispatch (workers_dispatch.sql) grants no Run of an archived project,
-- so its waiting line says that before any worker's state (one probe of
-- the project's key). No row when the project is active.
SELECT name FROM qinglong.projects WHERE id = $1 AND status = 'archived'

-- name: RunWaiting
-- Why no worker takes a queued Run, read in the Run's snapshot from the
-- live worker sessions with the conditions Dispatch (workers_dispatch.sql)
-- grants under: the placement labels of the Run's remote_worker
-- execution revision ($1 task, $2 revision; no row when it has none);
-- the live sessions (active or draining, lease not passed, credential not
-- revoked, as `ql workers list` counts them); those taking work (session
-- and credential active); those of them carrying every placement label;
-- whether one of these has a free slot, counted as Dispatch counts it
-- (the session's live attempts, and the credential's max concurrency less
-- the attempts its other sessions still hold under a lease); and the
-- distinct label sets of the sessions taking work, those carrying most of
-- the placement first, at most $3; and, for a Run admitted to wait behind
-- an earlier one (queue_one, or cancel_previous while the Run it cancelled
-- stops; $4 the Run), the nearest earlier unfinished Run of its trigger,
-- which Dispatch waits for (one probe of
-- runs_unfinished_trigger_idx), and the overlap policy of the trigger
-- revision that admitted it, which says which of the two holds it. Of
-- the matching sessions, those Dispatch may grant the Run to: when its
-- project has an env (pg-0051), only those reading it (workerproto.ReadProjectEnv among
-- their reads, pg-0052); the free slot is looked for among these. One row per worker process is read,
-- through worker_sessions_live_expiry_idx; the free slots are probed
-- only until one is found.
WITH n AS MATERIALIZED (SELECT {{now_ms}} AS ms),
place AS MATERIALIZED (
    SELECT coalesce(e.command -> 'placement' -> 'labels', '{}'::jsonb) AS labels,
           coalesce((SELECT pr.env <> '' FROM qinglong.projects pr WHERE pr.id = e.project_id), false) AS needs_env
      FROM qinglong.execution_revisions e
     WHERE e.task_id = $1 AND e.task_revision = $2 AND e.executor = 'remote_worker'
),
live AS MATERIALIZED (
    SELECT s.id, s.worker_id, s.labels, s.capacity, w.max_concurrency, s.state = 'active' AND w.state = 'active' AS takes,
           {{read_project_env}} = ANY (s.reads) AS reads_env
      FROM qinglong.worker_sessions s
      JOIN qinglong.workers w ON w.id = s.worker_id AND w.state <> 'revoked'
     WHERE s.state IN ('active', 'draining') AND s.lease_expires_at_ms > (SELECT ms FROM n)
),
matching AS MATERIALIZED (
    SELECT l.* FROM live l, place p WHERE l.takes AND p.labels <@ l.labels
),
grantable AS MATERIALIZED (
    SELECT m.* FROM matching m, place p WHERE NOT p.needs_env OR m.reads_env
)
SELECT p.labels,
       (SELECT count(*) FROM live),
       (SELECT count(*) FROM live WHERE takes),
       (SELECT count(*) FROM matching),
       (SELECT count(*) FROM grantable),
       EXISTS (SELECT 1 FROM grantable m
                CROSS JOIN LATERAL (SELECT count(*) AS live FROM qinglong.attempts x
                                     WHERE x.session_id = m.id AND x.state IN ('claimed', 'starting', 'running')) o
                WHERE least(m.capacity - o.live, m.max_concurrency - o.live - (
                          SELECT count(*) FROM qinglong.attempts x
                           WHERE x.worker_id = m.worker_id AND x.session_id <> m.id
                             AND x.state IN ('claimed', 'starting', 'running')
                             AND x.lease_expires_at_ms > (SELECT ms FROM n))) > 0),
       coalesce((SELECT jsonb_agg(c.labels ORDER BY c.carried DESC, c.labels)
                   FROM (SELECT l.labels, (SELECT count(*) FROM jsonb_each(p.labels) k WHERE l.labels -> k.key = k.value) AS carried
                           FROM live l WHERE l.takes
                          GROUP BY l.labels
                          ORDER BY carried DESC, l.labels
                          LIMIT $3) c), '[]'::jsonb),
       (SELECT e.id::text
          FROM qinglong.runs r
          JOIN qinglong.runs e ON e.trigger_id = r.trigger_id AND e.id < r.id
                              AND e.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
         WHERE r.id = $4 AND r.waits_for_previous
         ORDER BY e.id DESC
         LIMIT 1),
       (SELECT tr.overlap_policy
          FROM qinglong.runs r
          JOIN qinglong.trigger_revisions tr ON tr.trigger_id = r.trigger_id AND tr.revision = r.trigger_revision
         WHERE r.id = $4)
  FROM place p

-- name: TriggerList
-- Keyset page over the trigger heads of one project (or all), by id, with
-- each trigger's current revision and schedule state, and whether its
-- project is archived (it then has no next fire). $4 is the search as a
-- LIKE pattern (NULL none) over the text the list names a trigger by, or
-- over the command of the task revision it runs (a shell script, or an
-- argv program and its arguments joined by spaces; never the env or
-- working directory), filtered before the page is cut so that $2
-- continues the filtered order. The names are tried first, and the last
-- two columns say whether they matched and the command's mode, so that
-- the page says where the search found each trigger. Each trigger's
-- current revision (with its task's head) is read by its primary key, in
-- a lateral subquery whose LIMIT keeps the planner from flattening it
-- into a join, and the task revision in a subquery by its key, for each
-- current trigger revision the names did not match: a join would let the
-- planner hash every revision ever published, history included, so that
-- a page would cost with the history of republished triggers.
-- $5 is the names of the projects a bound token or console user may see
-- (NULL every project), filtered before the page is cut too, so that the
-- page is full of theirs. $6 keeps the search to the trigger's title
-- (TitlesOnly).
SELECT p.id, p.name, tg.id, tr.name, tr.revision, tr.enabled, tr.cron_expression, tr.cron_timezone, tr.misfire_policy,
       tr.jitter_ms, tr.start_at_ms, tr.end_at_ms, tr.catch_up_window_ms, tr.overlap_policy,
       tr.task_id, tr.task_name, tr.task_revision, tr.next_fire_at_ms, tr.next_fire_at_ms + tr.due_offset_ms, tr.last_scheduled_at_ms, tr.state_version, tr.claim_owner, tr.claim_expires_at_ms,
       tr.paused, tr.paused_with_project, p.status = 'archived', tg.title, tr.task_title, p.title,
       coalesce(p.name || '/' || tr.name || ' ' || tr.task_name || ' ' || tg.title || ' ' || tr.task_title || ' ' || p.title ILIKE $4::text ESCAPE '\', false),
       (SELECT kr.command ->> 'mode' FROM qinglong.task_revisions kr WHERE kr.task_id = tr.task_id AND kr.revision = tr.task_revision)
  FROM qinglong.triggers tg
  JOIN qinglong.projects p ON p.id = tg.project_id
 CROSS JOIN LATERAL (SELECT r.name, r.revision, r.enabled, r.cron_expression, r.cron_timezone, r.misfire_policy,
                            r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy,
                            r.task_id, r.task_revision, k.name AS task_name, k.title AS task_title,
                            s.next_fire_at_ms, s.due_offset_ms, s.last_scheduled_at_ms, s.state_version, s.claim_owner, s.claim_expires_at_ms,
                            s.paused, s.paused_with_project
                       FROM qinglong.trigger_revisions r
                       JOIN qinglong.tasks k ON k.id = r.task_id
                       JOIN qinglong.trigger_schedules s ON s.trigger_id = r.trigger_id
                      WHERE r.trigger_id = tg.id AND r.revision = tg.current_revision
                      LIMIT 1) tr
 WHERE ($1::uuid IS NULL OR tg.project_id = $1::uuid)
   AND ($2::uuid IS NULL OR tg.id > $2::uuid)
   AND ($5::text[] IS NULL OR p.name = ANY($5::text[]))
   AND ($4::text IS NULL OR tg.title ILIKE $4::text ESCAPE '\'
        OR NOT $6::boolean AND (p.name || '/' || tr.name || ' ' || tr.task_name || ' ' || tg.title || ' ' || tr.task_title || ' ' || p.title ILIKE $4::text ESCAPE '\'
        OR (SELECT CASE kr.command ->> 'mode'
                     WHEN 'shell' THEN kr.command ->> 'script'
                     ELSE concat_ws(' ', kr.command ->> 'path',
                                    (SELECT string_agg(a.arg, ' ' ORDER BY a.n)
                                       FROM jsonb_array_elements_text(coalesce(kr.command -> 'args', '[]'::jsonb)) WITH ORDINALITY AS a(arg, n)))
                   END
              FROM qinglong.task_revisions kr
             WHERE kr.task_id = tr.task_id AND kr.revision = tr.task_revision) ILIKE $4::text ESCAPE '\'))
 ORDER BY tg.id
 LIMIT $3

-- name: TriggerCount
-- How many triggers the triggers list's filters match, for the console to
-- count its pages without reading every match: TriggerList's WHERE
-- without its cursor and limit, over the same lateral read of each
-- trigger's current revision, so that the count and the pages agree. $1
-- is the project (NULL every one), $2 the search as a LIKE pattern (NULL
-- none) over the names and titles or the command, $3 the names of the
-- projects a bound token or console user may see (NULL every project)
-- and $4 keeps the search to the trigger's title; each as TriggerList
-- takes it (there $1, $4, $5 and $6).
SELECT count(*)::int
  FROM qinglong.triggers tg
  JOIN qinglong.projects p ON p.id = tg.project_id
 CROSS JOIN LATERAL (SELECT r.name, r.task_id, r.task_revision, k.name AS task_name, k.title AS task_title
                       FROM qinglong.trigger_revisions r
                       JOIN qinglong.tasks k ON k.id = r.task_id
                       JOIN qinglong.trigger_schedules s ON s.trigger_id = r.trigger_id
                      WHERE r.trigger_id = tg.id AND r.revision = tg.current_revision
                      LIMIT 1) tr
 WHERE ($1::uuid IS NULL OR tg.project_id = $1::uuid)
   AND ($3::text[] IS NULL OR p.name = ANY($3::text[]))
   AND ($2::text IS NULL OR tg.title ILIKE $2::text ESCAPE '\'
        OR NOT $4::boolean AND (p.name || '/' || tr.name || ' ' || tr.task_name || ' ' || tg.title || ' ' || tr.task_title || ' ' || p.title ILIKE $2::text ESCAPE '\'
        OR (SELECT CASE kr.command ->> 'mode'
                     WHEN 'shell' THEN kr.command ->> 'script'
                     ELSE concat_ws(' ', kr.command ->> 'path',
                                    (SELECT string_agg(a.arg, ' ' ORDER BY a.n)
                                       FROM jsonb_array_elements_text(coalesce(kr.command -> 'args', '[]'::jsonb)) WITH ORDINALITY AS a(arg, n)))
                   END
              FROM qinglong.task_revisions kr
             WHERE kr.task_id = tr.task_id AND kr.revision = tr.task_revision) ILIKE $2::text ESCAPE '\'))

-- name: RunsLast
-- The newest Run of each trigger of a page of the triggers list ($1): one
-- probe of runs_trigger_listing_idx (trigger_id, id DESC) per trigger, whose
-- first id is the Run admitted last (ids are UUIDv7, in admission order),
-- with when it was admitted, the Run it re-runs and the request that
-- admitted it (its run.created event's manual, one primary-key probe of
-- run_events): a rerun and a backfill's Run are listed at their admission
-- (run.ListedAt). A trigger without a Run gives no row.
-- Beside it, the two overlap warnings' facts (run.Last), each read in a
-- bounded probe so that a trigger with a million Runs costs what one with
-- ten does: its queued Runs, counted in runs_unfinished_trigger_idx up to
-- $2 (run.BacklogCountCap), and how many of its newest $3 Runs
-- (run.StarvingWindow, read off runs_trigger_listing_idx) were cancelled
-- before any of their attempts started (one probe of
-- attempts_run_number_key each). Last, the trigger's project, its
-- max_running (pg-0049; 0 none) and, under a cap, how many of its Runs
-- hold a slot, as RunProjectCap counts them (runs_project_slot_idx, about
-- max_running entries): a backlog of a project at its cap is advised to
-- raise the cap, not the workers.
SELECT r.trigger_id, r.id, r.state, r.scheduled_for_ms, r.finished_at_ms, r.created_at_ms, coalesce(r.rerun_of::text, ''),
       coalesce((SELECT e.payload->>'manual' FROM qinglong.run_events e WHERE e.run_id = r.id AND e.seq = 1), ''),
       (SELECT count(*) FROM (SELECT 1 FROM qinglong.runs q
                               WHERE q.trigger_id = t.id AND q.state = 'queued'
                                 AND q.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
                               LIMIT $2) queued)::int,
       (SELECT count(*) FROM (SELECT w.id, w.state FROM qinglong.runs w
                               WHERE w.trigger_id = t.id ORDER BY w.id DESC LIMIT $3) n
         WHERE n.state = 'cancelled'
           AND NOT EXISTS (SELECT 1 FROM qinglong.attempts a WHERE a.run_id = n.id AND a.started_at_ms IS NOT NULL))::int,
       p.name, p.max_running,
       CASE WHEN p.max_running > 0 THEN
         (SELECT count(*) FROM qinglong.runs x WHERE x.project_id::text = p.id::text AND x.state IN ('dispatching', 'running'))::int
       ELSE 0 END
  FROM unnest($1::uuid[]) AS t(id)
 CROSS JOIN LATERAL (SELECT l.trigger_id, l.id, l.state, l.scheduled_for_ms, l.finished_at_ms, l.created_at_ms, l.rerun_of, l.project_id
                       FROM qinglong.runs l WHERE l.trigger_id = t.id ORDER BY l.id DESC LIMIT 1) r
  JOIN qinglong.projects p ON p.id = r.project_id

-- name: RunProjectCap
-- A queued Run's project ($1) as Dispatch (workers_dispatch.sql) caps it:
-- its name, its maxRunning (pg-0049; 0 none) and how many of its Runs hold
-- a slot (dispatching or running), through runs_project_slot_idx, so
-- the count reads the project's few entries, whatever the history.
SELECT p.name, p.max_running,
       (SELECT count(*) FROM qinglong.runs x WHERE x.project_id::text = p.id::text AND x.state IN ('dispatching', 'running'))
  FROM qinglong.projects p
 WHERE p.id = $1

-- name: ProjectSlotHolders
-- The triggers of a project ($1) at its cap whose Runs hold its share of
-- the slots, each with how many it holds, most first, named as their
-- latest revision is: what a project_busy Run names. The rows grouped are
-- the project's Runs holding a slot (runs_project_slot_idx), about its
-- maxRunning of them.
SELECT x.trigger_id::text, p.name,
       coalesce((SELECT tr.name FROM qinglong.trigger_revisions tr WHERE tr.trigger_id = x.trigger_id ORDER BY tr.revision DESC LIMIT 1), '') AS trigger_name,
       count(*) AS held
  FROM qinglong.runs x
  JOIN qinglong.projects p ON p.id = x.project_id
 WHERE x.project_id::text = $1::text AND x.state IN ('dispatching', 'running') AND x.trigger_id IS NOT NULL
 GROUP BY x.trigger_id, p.name
 ORDER BY held DESC, trigger_name
