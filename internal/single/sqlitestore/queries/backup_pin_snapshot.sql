-- A backup's snapshot: the first read of the read transaction the backup
-- copies every page in, so every step copies the database as of this
-- instant (a step run outside it would take a new snapshot, and SQLite
-- would start the copy over each time a commit landed between two).
SELECT count(*) FROM sqlite_schema
