-- Ends a backup's read transaction once every page is copied (it wrote
-- nothing), letting checkpoints reach the -wal file's end again.
COMMIT
