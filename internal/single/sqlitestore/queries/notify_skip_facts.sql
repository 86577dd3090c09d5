-- A trigger's project settings ('' without any) and names, for the
-- notifications of the ledger entries a decision just wrote.
SELECT coalesce(p.notifications_json, ''), p.id, p.name,
       coalesce((SELECT tr.name FROM trigger_revisions tr WHERE tr.trigger_id = t.id AND tr.revision = ?2), '')
  FROM triggers t JOIN projects p ON p.id = t.project_id
 WHERE t.id = ?1
