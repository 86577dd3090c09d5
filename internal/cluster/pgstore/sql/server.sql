-- name: ServerAddress
-- Which server the session reached, as the server sees it (server.go):
-- its address and port (NULL over a unix socket), whether it is a standby,
-- and whether this role may read the control file's identity and
-- timeline. Those two functions are EXECUTE for PUBLIC on a default
-- install, but an operator may revoke them, and a privilege is checked
-- when a statement starts, whatever branch a CASE takes: so they are
-- asked first and read in a statement of their own.
SELECT pg_catalog.host(pg_catalog.inet_server_addr()), pg_catalog.inet_server_port(), pg_catalog.pg_is_in_recovery(),
       pg_catalog.has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE'),
       pg_catalog.has_function_privilege('pg_catalog.pg_control_checkpoint()', 'EXECUTE')

-- name: ServerSystemID
-- The cluster's system identifier, set by initdb: a standby made with
-- pg_basebackup shares its primary's, a restore into a new cluster does not.
SELECT system_identifier::text FROM pg_catalog.pg_control_system()

-- name: ServerTimeline
-- The timeline of the server's last checkpoint: a promoted standby starts a
-- higher one (its end-of-recovery checkpoint follows promotion at once),
-- so a server reached after a failover on a lower timeline than before is
-- an old primary that was not fenced.
SELECT timeline_id::bigint FROM pg_catalog.pg_control_checkpoint()

-- name: ServerInRecovery
-- Whether the server is a standby: what tells a standby's refusal of a
-- SERIALIZABLE transaction from another 0A000 (tx.go).
SELECT pg_catalog.pg_is_in_recovery()
