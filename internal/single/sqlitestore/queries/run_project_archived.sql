-- The name of a queued Run's project when that project is archived: the
-- dispatcher's queue (attempts_pending.sql) holds every Run of an archived
-- project, so its waiting line says that before any count of slots (one
-- probe of each primary key). No row when the project is active.
SELECT pr.name
FROM runs r
JOIN projects pr ON pr.id = r.project_id
WHERE r.id = ? AND r.state = 'queued' AND pr.status = 'archived'
