-- One page of triggers (current revision, pinned task name, schedule state)
-- ordered by id; ?2 is the previous page's last id. The project's status
-- says whether the trigger is archived (it then has no next fire). ?4 is
-- the search as a LIKE pattern ('' none) over the text the list names a
-- trigger by, or over the command of the task revision it runs (a shell
-- script, or an argv program and its arguments joined by spaces; never
-- the env or working directory), filtered before the page is cut so that
-- ?2 continues the filtered order; LIKE folds ASCII case. The names are
-- tried first, and the last two columns say whether they matched and the
-- command's mode, so that the page says where the search found each
-- trigger. The command is read from the revision's stored spec, a row
-- the walk has already joined, so a search reads no more rows; parsing
-- each spec's JSON would cost three times the names' walk, so ?6 (''
-- none), a pattern the spec's text matches wherever its command holds
-- the search (specPrefilter), rules out first, without parsing, the
-- revisions that cannot match. ?5 is the names of the projects a
-- bound token or console user may see, a JSON array ('' every project),
-- filtered before the page is cut too, so that the page is full of theirs.
-- ?7 (1 or 0) keeps the search to the trigger's title (TitlesOnly).
-- The page's ids are found first, in a subquery SQLite fills before it
-- returns the first trigger: the driver interrupts a statement whose
-- context ends only within its first step, so a search whose matches lie
-- far apart would otherwise walk on for the page's later triggers past the
-- request's limit. The triggers are then read by id, at most a page.
SELECT p.id, p.name, t.id, r.name, r.revision, r.enabled, r.expression, r.timezone, r.misfire_policy,
       r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy,
       r.task_id, kr.name, r.task_revision, s.next_fire_at_ms, s.next_fire_at_ms + s.due_offset_ms, s.last_scheduled_at_ms, coalesce(s.state_version, 0),
       coalesce(s.paused, 0), coalesce(s.paused_with_project, 0), p.status = 'archived', t.title, kh.title, p.title,
       ?4 <> '' AND p.name || '/' || r.name || ' ' || kr.name || ' ' || t.title || ' ' || kh.title || ' ' || p.title LIKE ?4 ESCAPE '\', json_extract(kr.spec_json, '$.command.mode')
FROM triggers t
JOIN projects p ON p.id = t.project_id
JOIN tasks kh ON kh.id = t.task_id
JOIN trigger_revisions r ON r.trigger_id = t.id AND r.revision = t.current_revision
JOIN task_revisions kr ON kr.task_id = r.task_id AND kr.revision = r.task_revision
LEFT JOIN trigger_schedules s ON s.trigger_id = t.id
WHERE t.id IN (
  SELECT t.id
  FROM triggers t
  JOIN projects p ON p.id = t.project_id
  JOIN tasks kh ON kh.id = t.task_id
  JOIN trigger_revisions r ON r.trigger_id = t.id AND r.revision = t.current_revision
  JOIN task_revisions kr ON kr.task_id = r.task_id AND kr.revision = r.task_revision
  WHERE (?1 = '' OR t.project_id = ?1) AND (?2 = '' OR t.id > ?2)
    AND (?5 = '' OR p.name IN (SELECT value FROM json_each(?5)))
    AND (?4 = '' OR t.title LIKE ?4 ESCAPE '\'
         OR NOT ?7 AND (p.name || '/' || r.name || ' ' || kr.name || ' ' || t.title || ' ' || kh.title || ' ' || p.title LIKE ?4 ESCAPE '\'
         OR ((?6 = '' OR kr.spec_json LIKE ?6 ESCAPE '\')
             AND CASE json_extract(kr.spec_json, '$.command.mode')
                   WHEN 'shell' THEN json_extract(kr.spec_json, '$.command.script')
                   ELSE json_extract(kr.spec_json, '$.command.path') || coalesce((SELECT ' ' || group_concat(a.value, ' ' ORDER BY a.key) FROM json_each(kr.spec_json, '$.command.args') a), '')
                 END LIKE ?4 ESCAPE '\')))
  ORDER BY t.id
  LIMIT ?3)
ORDER BY t.id
