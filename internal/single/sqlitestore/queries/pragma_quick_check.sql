-- The file's structure, page by page: every b-tree page readable and well
-- formed, every record within its page, the free list whole. A server
-- serves no file that fails it (CheckIntegrity), so it never runs commands
-- whose results it cannot record. Ten problems at most: one says enough.
PRAGMA quick_check(10)
