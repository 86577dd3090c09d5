-- pg-0046: the audit trail of the changes people make (tokens, console
-- users, project pauses, notification retries): who, what, which object,
-- when (the database's clock), written in the transaction of the change
-- it records. It references nothing, so a deleted user or token keeps its
-- records, and holds no secret. Append-only: the admin and runtime roles,
-- which make the changes, hold SELECT and INSERT on it and no role UPDATE
-- or DELETE (grants.go); nothing deletes it.
CREATE TABLE qinglong.audit_log (
    id          uuid   NOT NULL PRIMARY KEY,
    at_ms       bigint NOT NULL CHECK (at_ms >= 0),
    actor       text   NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
    action      text   NOT NULL CHECK (action ~ '^[a-z_]+\.[a-z_]+$'),
    object_kind text   NOT NULL,
    object_id   text   NOT NULL,
    object_name text   NOT NULL,
    project     text   NOT NULL DEFAULT '',
    note        text   NOT NULL DEFAULT '' CHECK (length(note) <= 1000)
);
CREATE INDEX audit_log_at_idx ON qinglong.audit_log (at_ms, id);
