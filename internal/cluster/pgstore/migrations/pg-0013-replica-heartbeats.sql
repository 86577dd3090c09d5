-- Replica heartbeats (docs/operations.md, "Replica heartbeats"): one row
-- per replica id (the owner its claims carry), written by that replica's
-- runtime role every few seconds with times from the database clock. A
-- replica is live while its row is not stopped and has not expired. The
-- runtime role may insert and update rows but never delete one: a replica
-- marks its own row stopped on a graceful stop, an expired row stays
-- until the maintenance role's retention pass removes it.
CREATE TABLE qinglong.replica_heartbeats (
    replica_id      text   NOT NULL PRIMARY KEY CHECK (length(replica_id) BETWEEN 1 AND 128),
    host            text   NOT NULL CHECK (length(host) BETWEEN 1 AND 255),
    pid             bigint NOT NULL CHECK (pid > 0),
    version         text   NOT NULL CHECK (length(version) BETWEEN 1 AND 128),
    started_at_ms   bigint NOT NULL CHECK (started_at_ms >= 0),
    last_seen_at_ms bigint NOT NULL CHECK (last_seen_at_ms >= started_at_ms),
    expires_at_ms   bigint NOT NULL CHECK (expires_at_ms > last_seen_at_ms),
    stopped_at_ms   bigint CHECK (stopped_at_ms >= started_at_ms)
);
