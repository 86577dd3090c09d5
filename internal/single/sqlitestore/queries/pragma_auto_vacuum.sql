-- 2 is incremental: free pages stay in the file until incremental_vacuum.
PRAGMA auto_vacuum
