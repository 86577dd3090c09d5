-- `ql db check`: every page of every table and index, and that each index
-- agrees with its table; "ok" alone for a sound file.
PRAGMA integrity_check
