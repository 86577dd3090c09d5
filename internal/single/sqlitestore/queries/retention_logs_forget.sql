-- Retention: the attempts in the JSON array ?1 no longer have a log on
-- disk (their files are gone); log_bytes keeps how much there was.
UPDATE attempts SET log_path = '' WHERE id IN (SELECT value FROM json_each(?1)) AND log_path <> ''
