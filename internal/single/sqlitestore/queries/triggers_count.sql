-- How many triggers the triggers list's filters match, for the console to
-- count its pages without reading every match: the WHERE of
-- triggers_list's subquery without its cursor and limit, so that the
-- count and the pages agree. ?1 is the project ('' every one), ?2 the
-- search as a LIKE pattern ('' none) over the names and titles or the
-- command, ?3 the names of the projects a bound token or console user may
-- see (a JSON array, '' every project), ?4 the spec prefilter ('' none)
-- and ?5 (1 or 0) keeps the search to the trigger's title; each as
-- triggers_list takes it (there ?1, ?4, ?5, ?6 and ?7).
SELECT count(*)
FROM triggers t
JOIN projects p ON p.id = t.project_id
JOIN tasks kh ON kh.id = t.task_id
JOIN trigger_revisions r ON r.trigger_id = t.id AND r.revision = t.current_revision
JOIN task_revisions kr ON kr.task_id = r.task_id AND kr.revision = r.task_revision
WHERE (?1 = '' OR t.project_id = ?1)
  AND (?3 = '' OR p.name IN (SELECT value FROM json_each(?3)))
  AND (?2 = '' OR t.title LIKE ?2 ESCAPE '\'
       OR NOT ?5 AND (p.name || '/' || r.name || ' ' || kr.name || ' ' || t.title || ' ' || kh.title || ' ' || p.title LIKE ?2 ESCAPE '\'
       OR ((?4 = '' OR kr.spec_json LIKE ?4 ESCAPE '\')
           AND CASE json_extract(kr.spec_json, '$.command.mode')
                 WHEN 'shell' THEN json_extract(kr.spec_json, '$.command.script')
                 ELSE json_extract(kr.spec_json, '$.command.path') || coalesce((SELECT ' ' || group_concat(a.value, ' ' ORDER BY a.key) FROM json_each(kr.spec_json, '$.command.args') a), '')
               END LIKE ?2 ESCAPE '\')))
