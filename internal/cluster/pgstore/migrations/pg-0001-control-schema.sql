-- pg-0001-control-schema: the control schema of the cluster profile.
-- The runner creates schema qinglong (when absent) and wraps this file in one
-- transaction that asserts and advances the capability row.

-- Applied migrations, in stream order; readiness compares them with the
-- binary's stream (ids and checksums, exact prefix-equal).
CREATE TABLE qinglong.schema_migrations (
    seq           integer NOT NULL PRIMARY KEY CHECK (seq BETWEEN 1 AND 9999),
    id            text    NOT NULL UNIQUE CHECK (id ~ '^pg-[0-9]{4}-[a-z0-9-]+$'),
    checksum      text    NOT NULL CHECK (checksum ~ '^sha256:[0-9a-f]{64}$'),
    applied_at_ms bigint  NOT NULL CHECK (applied_at_ms >= 0)
);

-- The capability row: which contract this database offers. One row.
CREATE TABLE qinglong.schema_capability (
    component     text    NOT NULL PRIMARY KEY CHECK (component = 'control-core'),
    version       integer NOT NULL CHECK (version BETWEEN 1 AND 9999),
    name          text    NOT NULL CHECK (name ~ '^[a-z0-9-]+$'),
    updated_at_ms bigint  NOT NULL CHECK (updated_at_ms >= 0)
);

CREATE TABLE qinglong.projects (
    id            uuid   NOT NULL PRIMARY KEY,
    name          text   NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9]([a-z0-9_.-]*[a-z0-9])?$' AND length(name) <= 128),
    status        text   NOT NULL CHECK (status IN ('active', 'archived')),
    created_at_ms bigint NOT NULL CHECK (created_at_ms >= 0),
    updated_at_ms bigint NOT NULL CHECK (updated_at_ms >= created_at_ms)
);

-- Task head: identity, name and the current revision (deferred FK: the head
-- and its first revision are written in one transaction).
CREATE TABLE qinglong.tasks (
    id               uuid   NOT NULL PRIMARY KEY,
    project_id       uuid   NOT NULL REFERENCES qinglong.projects (id),
    name             text   NOT NULL CHECK (name ~ '^[a-z0-9]([a-z0-9_.-]*[a-z0-9])?$' AND length(name) <= 128),
    current_revision bigint NOT NULL CHECK (current_revision BETWEEN 1 AND 2147483647),
    created_at_ms    bigint NOT NULL CHECK (created_at_ms >= 0),
    updated_at_ms    bigint NOT NULL CHECK (updated_at_ms >= created_at_ms),
    CONSTRAINT tasks_project_name_key UNIQUE (project_id, name),
    CONSTRAINT tasks_project_id_key UNIQUE (project_id, id)
);

-- Immutable task revisions; mutation ids are unique per task so a replay is
-- recognisable.
CREATE TABLE qinglong.task_revisions (
    task_id        uuid    NOT NULL REFERENCES qinglong.tasks (id),
    revision       bigint  NOT NULL CHECK (revision BETWEEN 1 AND 2147483647),
    project_id     uuid    NOT NULL,
    kind           text    NOT NULL CHECK (kind = 'qinglong/command@v1'),
    name           text    NOT NULL,
    enabled        boolean NOT NULL,
    labels         jsonb   NOT NULL CHECK (jsonb_typeof(labels) = 'object'),
    command        jsonb   NOT NULL CHECK (jsonb_typeof(command) = 'object'),
    content_digest text    NOT NULL CHECK (content_digest ~ '^sha256:[0-9a-f]{64}$'),
    mutation_id    text    NOT NULL CHECK (length(mutation_id) BETWEEN 1 AND 128),
    created_at_ms  bigint  NOT NULL CHECK (created_at_ms >= 0),
    PRIMARY KEY (task_id, revision),
    CONSTRAINT task_revisions_mutation_key UNIQUE (task_id, mutation_id),
    CONSTRAINT task_revisions_task_project_fkey FOREIGN KEY (project_id, task_id) REFERENCES qinglong.tasks (project_id, id)
);

ALTER TABLE qinglong.tasks
    ADD CONSTRAINT tasks_current_revision_fkey FOREIGN KEY (id, current_revision)
    REFERENCES qinglong.task_revisions (task_id, revision) DEFERRABLE INITIALLY DEFERRED;

-- The immutable plan a worker executes, written with its enabled task
-- revision; admission verifies its digest and never repairs it.
CREATE TABLE qinglong.execution_revisions (
    task_id             uuid   NOT NULL,
    task_revision       bigint NOT NULL,
    executor            text   NOT NULL CHECK (executor IN ('remote_worker', 'local_process')),
    id                  text   NOT NULL CHECK (id ~ '^qltd:v1:[0-9]+:sha256:[0-9a-f]{64}$'),
    project_id          uuid   NOT NULL,
    task_content_digest text   NOT NULL CHECK (task_content_digest ~ '^sha256:[0-9a-f]{64}$'),
    command             jsonb  NOT NULL CHECK (jsonb_typeof(command) = 'object'),
    digest              text   NOT NULL CHECK (digest ~ '^sha256:[0-9a-f]{64}$'),
    created_at_ms       bigint NOT NULL CHECK (created_at_ms >= 0),
    PRIMARY KEY (task_id, task_revision, executor),
    CONSTRAINT execution_revisions_task_revision_fkey FOREIGN KEY (task_id, task_revision) REFERENCES qinglong.task_revisions (task_id, revision)
);

-- Trigger head: bound forever to one task of its project.
CREATE TABLE qinglong.triggers (
    id               uuid   NOT NULL PRIMARY KEY,
    project_id       uuid   NOT NULL REFERENCES qinglong.projects (id),
    task_id          uuid   NOT NULL,
    name             text   NOT NULL CHECK (name ~ '^[a-z0-9]([a-z0-9_.-]*[a-z0-9])?$' AND length(name) <= 128),
    current_revision bigint NOT NULL CHECK (current_revision BETWEEN 1 AND 2147483647),
    created_at_ms    bigint NOT NULL CHECK (created_at_ms >= 0),
    updated_at_ms    bigint NOT NULL CHECK (updated_at_ms >= created_at_ms),
    CONSTRAINT triggers_project_name_key UNIQUE (project_id, name),
    CONSTRAINT triggers_task_fkey FOREIGN KEY (project_id, task_id) REFERENCES qinglong.tasks (project_id, id)
);

-- Immutable trigger revisions, each pinning an exact task revision.
CREATE TABLE qinglong.trigger_revisions (
    trigger_id          uuid    NOT NULL REFERENCES qinglong.triggers (id),
    revision            bigint  NOT NULL CHECK (revision BETWEEN 1 AND 2147483647),
    project_id          uuid    NOT NULL,
    task_id             uuid    NOT NULL,
    task_revision       bigint  NOT NULL,
    task_content_digest text    NOT NULL CHECK (task_content_digest ~ '^sha256:[0-9a-f]{64}$'),
    kind                text    NOT NULL CHECK (kind = 'qinglong/cron@v1'),
    name                text    NOT NULL,
    enabled             boolean NOT NULL,
    cron_expression     text    NOT NULL CHECK (length(cron_expression) BETWEEN 1 AND 256),
    cron_timezone       text    NOT NULL CHECK (length(cron_timezone) BETWEEN 1 AND 64),
    misfire_policy      text    NOT NULL CHECK (misfire_policy IN ('skip', 'fire_once')),
    content_digest      text    NOT NULL CHECK (content_digest ~ '^sha256:[0-9a-f]{64}$'),
    mutation_id         text    NOT NULL CHECK (length(mutation_id) BETWEEN 1 AND 128),
    created_at_ms       bigint  NOT NULL CHECK (created_at_ms >= 0),
    PRIMARY KEY (trigger_id, revision),
    CONSTRAINT trigger_revisions_mutation_key UNIQUE (trigger_id, mutation_id),
    CONSTRAINT trigger_revisions_task_revision_fkey FOREIGN KEY (task_id, task_revision) REFERENCES qinglong.task_revisions (task_id, revision)
);

ALTER TABLE qinglong.triggers
    ADD CONSTRAINT triggers_current_revision_fkey FOREIGN KEY (id, current_revision)
    REFERENCES qinglong.trigger_revisions (trigger_id, revision) DEFERRABLE INITIALLY DEFERRED;

-- One schedule row per trigger head (docs/architecture.md, "Domain"). claim_version is a monotonic
-- counter that survives a cleared claim, so a claim can never be re-issued
-- under a version an older holder remembers (no ABA).
CREATE TABLE qinglong.trigger_schedules (
    trigger_id           uuid   NOT NULL PRIMARY KEY REFERENCES qinglong.triggers (id),
    project_id           uuid   NOT NULL REFERENCES qinglong.projects (id),
    trigger_revision     bigint NOT NULL CHECK (trigger_revision BETWEEN 1 AND 2147483647),
    next_fire_at_ms      bigint CHECK (next_fire_at_ms >= 0),
    last_scheduled_at_ms bigint CHECK (last_scheduled_at_ms >= 0),
    state_version        bigint NOT NULL CHECK (state_version BETWEEN 1 AND 2147483647),
    claim_owner          text CHECK (claim_owner ~ '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$'),
    claim_token          uuid,
    claim_version        bigint NOT NULL CHECK (claim_version BETWEEN 0 AND 2147483647),
    claim_expires_at_ms  bigint,
    updated_at_ms        bigint NOT NULL CHECK (updated_at_ms >= 0),
    CONSTRAINT trigger_schedules_claim_shape CHECK (
        (claim_owner IS NULL AND claim_token IS NULL AND claim_expires_at_ms IS NULL)
        OR (claim_owner IS NOT NULL AND claim_token IS NOT NULL AND claim_expires_at_ms IS NOT NULL
            AND claim_version >= 1 AND claim_expires_at_ms > updated_at_ms)
    ),
    CONSTRAINT trigger_schedules_revision_fkey FOREIGN KEY (trigger_id, trigger_revision) REFERENCES qinglong.trigger_revisions (trigger_id, revision)
);

-- Claim index 1 (docs/architecture.md, "Claim"): unclaimed rows in exactly the claim's ORDER BY,
-- so the NULL branch and the due branch each read only the rows they take,
-- however many rows share one fire time; live claims are not in it at all.
CREATE INDEX trigger_schedules_unclaimed_order_idx
    ON qinglong.trigger_schedules (next_fire_at_ms NULLS FIRST, project_id, trigger_id)
    WHERE claim_owner IS NULL;

-- Claim index 2: held claims by expiry, so expired claims are found without
-- visiting the live ones in front of them.
CREATE INDEX trigger_schedules_claim_expiry_idx
    ON qinglong.trigger_schedules (claim_expires_at_ms, trigger_id)
    WHERE claim_owner IS NOT NULL;

-- Runs: one admitted occurrence each; the idempotency key is unique per
-- project, so a replayed admission can create nothing twice.
CREATE TABLE qinglong.runs (
    id                     uuid   NOT NULL PRIMARY KEY,
    project_id             uuid   NOT NULL REFERENCES qinglong.projects (id),
    task_id                uuid   NOT NULL,
    task_revision          bigint NOT NULL,
    trigger_id             uuid,
    trigger_revision       bigint,
    execution_revision_id  text   NOT NULL CHECK (execution_revision_id ~ '^qltd:v1:[0-9]+:sha256:[0-9a-f]{64}$'),
    idempotency_key        text   NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 256),
    scheduled_for_ms       bigint NOT NULL CHECK (scheduled_for_ms >= 0),
    state                  text   NOT NULL CHECK (state IN ('created', 'queued', 'dispatching', 'running', 'waiting_approval',
                                                           'retry_wait', 'succeeded', 'failed', 'cancelled', 'timed_out', 'lost')),
    version                bigint NOT NULL CHECK (version BETWEEN 1 AND 2147483647),
    last_event_seq         bigint NOT NULL CHECK (last_event_seq BETWEEN 1 AND 2147483647),
    cancel_requested_at_ms bigint CHECK (cancel_requested_at_ms >= 0),
    created_at_ms          bigint NOT NULL CHECK (created_at_ms >= 0),
    queued_at_ms           bigint CHECK (queued_at_ms >= created_at_ms),
    updated_at_ms          bigint NOT NULL CHECK (updated_at_ms >= created_at_ms),
    finished_at_ms         bigint CHECK (finished_at_ms >= created_at_ms),
    CONSTRAINT runs_idempotency_key UNIQUE (project_id, idempotency_key),
    CONSTRAINT runs_trigger_shape CHECK ((trigger_id IS NULL) = (trigger_revision IS NULL)),
    CONSTRAINT runs_task_revision_fkey FOREIGN KEY (task_id, task_revision) REFERENCES qinglong.task_revisions (task_id, revision),
    CONSTRAINT runs_trigger_revision_fkey FOREIGN KEY (trigger_id, trigger_revision) REFERENCES qinglong.trigger_revisions (trigger_id, revision)
);

-- Run listings page newest first by id (UUIDv7, time-ordered), filtered by
-- project, trigger or state.
CREATE INDEX runs_project_listing_idx ON qinglong.runs (project_id, id DESC);
CREATE INDEX runs_trigger_listing_idx ON qinglong.runs (trigger_id, id DESC) WHERE trigger_id IS NOT NULL;
CREATE INDEX runs_state_listing_idx ON qinglong.runs (state, id DESC);
CREATE INDEX runs_project_state_listing_idx ON qinglong.runs (project_id, state, id DESC);
-- Startup recovery scans only unfinished runs.
CREATE INDEX runs_unfinished_idx ON qinglong.runs (id)
    WHERE state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out');

-- Attempts: admission writes number 1 'claimed' with every dispatch field
-- NULL; dispatch, worker sessions, leases, offers, callbacks and results
-- fill them later.
-- attempts.run_id and run_events.run_id carry no foreign key on purpose:
-- an FK check reads the runs primary-key leaf page under SERIALIZABLE, and
-- concurrent admissions insert their (time-ordered) run ids into that same
-- page, so parallel admissions would abort each other. Both rows are
-- written in the Run's own transaction and no role may DELETE a run, so
-- an orphan cannot arise.
CREATE TABLE qinglong.attempts (
    id                    uuid    NOT NULL PRIMARY KEY,
    run_id                uuid    NOT NULL,
    number                integer NOT NULL CHECK (number BETWEEN 1 AND 10000),
    executor              text    NOT NULL CHECK (executor IN ('remote_worker', 'local_process')),
    state                 text    NOT NULL CHECK (state IN ('claimed', 'starting', 'running', 'succeeded', 'failed',
                                                            'timed_out', 'cancelled', 'lost')),
    worker_id             text CHECK (length(worker_id) BETWEEN 1 AND 128),
    session_id            uuid,
    lease_token           uuid,
    lease_version         bigint CHECK (lease_version >= 1),
    lease_expires_at_ms   bigint,
    offer_id              uuid,
    offered_at_ms         bigint,
    offer_acked_at_ms     bigint,
    callback_token_sha256 text CHECK (callback_token_sha256 ~ '^[0-9a-f]{64}$'),
    last_callback_seq     bigint CHECK (last_callback_seq >= 0),
    last_callback_at_ms   bigint,
    started_at_ms         bigint,
    finished_at_ms        bigint,
    exit_code             integer,
    result_code           text CHECK (length(result_code) BETWEEN 1 AND 64),
    error_code            text CHECK (length(error_code) BETWEEN 1 AND 64),
    error_message         text CHECK (length(error_message) <= 1024),
    log_path              text,
    log_bytes             bigint  NOT NULL DEFAULT 0 CHECK (log_bytes >= 0),
    log_truncated         boolean NOT NULL DEFAULT false,
    created_at_ms         bigint  NOT NULL CHECK (created_at_ms >= 0),
    updated_at_ms         bigint  NOT NULL CHECK (updated_at_ms >= created_at_ms),
    CONSTRAINT attempts_run_number_key UNIQUE (run_id, number),
    CONSTRAINT attempts_lease_shape CHECK ((lease_token IS NULL) = (lease_expires_at_ms IS NULL))
);

-- Live execution leases by expiry, for the dispatcher's expiry sweep.
CREATE INDEX attempts_lease_expiry_idx ON qinglong.attempts (lease_expires_at_ms)
    WHERE lease_expires_at_ms IS NOT NULL;

-- Append-only run history with a gap-free per-run sequence.
CREATE TABLE qinglong.run_events (
    run_id        uuid   NOT NULL,
    seq           bigint NOT NULL CHECK (seq BETWEEN 1 AND 2147483647),
    name          text   NOT NULL CHECK (name ~ '^[a-z]+\.[a-z_]+$'),
    payload       jsonb  NOT NULL CHECK (jsonb_typeof(payload) = 'object' AND octet_length(payload::text) <= 4096),
    created_at_ms bigint NOT NULL CHECK (created_at_ms >= 0),
    PRIMARY KEY (run_id, seq)
);
