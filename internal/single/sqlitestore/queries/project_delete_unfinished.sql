-- Project deletion, under the write lock: the project's Runs that have not
-- ended, or have an attempt still open, which a deletion refuses to lose
-- (runs_project index).
SELECT count(*) FROM runs r
WHERE r.project_id = ?1
  AND (r.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
       OR EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = r.id AND a.state IN ('claimed', 'starting', 'running')))
