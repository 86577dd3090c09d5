-- In a backup just written: the unfinished attempts forget their process.
-- Those processes belong to the server the copy was taken from; a server
-- started on the copy (on the same host) would otherwise take them for
-- the orphans of a crash and end them, killing the live server's
-- commands. It still records the attempts lost, as after a crash.
UPDATE attempts SET pid = NULL WHERE state IN ('starting', 'running')
