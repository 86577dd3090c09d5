-- The env of the project of a Run whose attempt starts (AttemptStart),
-- read in the transaction that starts it: the attempt starts with the
-- project's env as it is then (migration 0047), whatever revision its
-- task is at, for changing it publishes none.
SELECT pr.env_json FROM runs r JOIN projects pr ON pr.id = r.project_id WHERE r.id = ?
