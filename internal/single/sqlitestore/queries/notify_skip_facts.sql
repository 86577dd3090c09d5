-- A trigger's project settings ('' without any) and names, for the
-- notifications of the ledger entries a decision just wrote: the trigger's
-- and its task's at the decided revision, which the rules scoped to tasks
-- or triggers name — and the trigger's, the project's and the task's
-- display titles now ('' none), which a Run's notification carries too.
SELECT coalesce(p.notifications_json, ''), p.id, p.name, coalesce(tr.name, ''), coalesce(tk.name, ''), t.title, p.title, coalesce(tk.title, '')
  FROM triggers t JOIN projects p ON p.id = t.project_id
  LEFT JOIN trigger_revisions tr ON tr.trigger_id = t.id AND tr.revision = ?2
  LEFT JOIN tasks tk ON tk.id = tr.task_id
 WHERE t.id = ?1
