-- Project deletion, under the write lock: the next ?2 Runs of project ?1
-- to delete (runs_project index); the deletion has checked that every one
-- of them has ended.
SELECT id FROM runs WHERE project_id = ?1 ORDER BY id LIMIT ?2
