-- Attempt 1 of each Run run_page_insert wrote, from the same JSON array
-- (?1; run id at 0, project id at 1, attempt id at 10), claimed for the
-- executor ?3 at the page's time ?2, as attempt_admit_insert writes one,
-- with its Run's project (migration 0048).
INSERT INTO attempts (id, run_id, number, executor, state, created_at_ms, project_id)
SELECT value ->> 10, value ->> 0, 1, ?3, 'claimed', ?2, value ->> 1
FROM jsonb_each(?1)
