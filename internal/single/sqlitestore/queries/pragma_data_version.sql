-- Whether another connection committed: the value changes when any other
-- connection (another process's too) commits to the file, never for this
-- connection's own commits.
PRAGMA data_version
