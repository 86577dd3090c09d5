-- Failure notifications: a project's rules and channels (canonical JSON,
-- kept as text so that it reads back byte for byte and an unchanged file
-- stays unchanged; NULL for a project without any, so every existing
-- project keeps its meaning) and the outbox of notifications to deliver.
--
-- An outbox row is written in the transaction that finishes the Run
-- causing it, so a crash after the commit loses no notification; the
-- unique (rule_key, subject) keeps one row per rule and Run. Replicas
-- deliver from it together: a claim takes due rows FOR UPDATE SKIP LOCKED
-- and pushes their next attempt past a lease, so no two send one row at
-- once. The runtime role inserts, claims and updates rows and never
-- deletes one. run_id has no foreign key, so the outbox never keeps a
-- finished Run from being removed.
ALTER TABLE qinglong.projects
    ADD COLUMN notifications text CHECK (notifications IS NULL OR jsonb_typeof(notifications::jsonb) = 'object');

CREATE TABLE qinglong.notification_outbox (
    id                 uuid   NOT NULL PRIMARY KEY,
    project_id         uuid   NOT NULL REFERENCES qinglong.projects (id),
    run_id             uuid,
    rule_key           text   NOT NULL CHECK (rule_key LIKE 'sha256:%' AND length(rule_key) = 71),
    subject            text   NOT NULL CHECK (length(subject) <= 200),
    event              text   NOT NULL CHECK (event IN ('failed', 'timed_out', 'lost', 'skipped', 'recovered', 'consecutive_failures')),
    channel            jsonb  NOT NULL CHECK (jsonb_typeof(channel) = 'object'),
    payload            jsonb  NOT NULL CHECK (jsonb_typeof(payload) = 'object'),
    state              text   NOT NULL CHECK (state IN ('pending', 'delivered', 'dead')),
    attempts           integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at_ms bigint NOT NULL CHECK (next_attempt_at_ms >= 0),
    last_error         text   CHECK (length(last_error) <= 2000),
    created_at_ms      bigint NOT NULL CHECK (created_at_ms >= 0),
    updated_at_ms      bigint NOT NULL CHECK (updated_at_ms >= 0),
    delivered_at_ms    bigint CHECK (delivered_at_ms >= 0),
    CONSTRAINT notification_outbox_rule_subject_key UNIQUE (rule_key, subject)
);

-- The claim reads due pending rows in due order; listings read by state,
-- newest first.
CREATE INDEX notification_outbox_due_idx ON qinglong.notification_outbox (next_attempt_at_ms) WHERE state = 'pending';
CREATE INDEX notification_outbox_state_idx ON qinglong.notification_outbox (state, created_at_ms DESC);
