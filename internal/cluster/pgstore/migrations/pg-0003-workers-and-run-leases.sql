-- pg-0003: workers, their sessions, run leases on attempts and log chunks
-- (docs/architecture.md, "Execution: workers and run leases").
--
-- A worker never holds database credentials: it talks to a replica's
-- worker ingress, which records everything here over the runtime role.
-- Nothing secret is stored: a worker credential and a lease token are kept
-- as their SHA-256 only, so a reader of this database (a backup, a
-- replica's role) can never act as a worker or as one of its leases.

-- Worker credentials, created by an admin. The credential itself is shown
-- once and never stored.
CREATE TABLE qinglong.workers (
    id                uuid    NOT NULL PRIMARY KEY,
    name              text    NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9]([a-z0-9_.-]*[a-z0-9])?$' AND length(name) <= 128),
    labels            jsonb   NOT NULL CHECK (jsonb_typeof(labels) = 'object'),
    max_concurrency   integer NOT NULL CHECK (max_concurrency BETWEEN 1 AND 256),
    credential_sha256 text    NOT NULL UNIQUE CHECK (credential_sha256 ~ '^[0-9a-f]{64}$'),
    state             text    NOT NULL CHECK (state IN ('active', 'draining', 'revoked')),
    created_at_ms     bigint  NOT NULL CHECK (created_at_ms >= 0),
    updated_at_ms     bigint  NOT NULL CHECK (updated_at_ms >= created_at_ms),
    revoked_at_ms     bigint  CHECK (revoked_at_ms >= created_at_ms),
    CONSTRAINT workers_revoked_shape CHECK ((state = 'revoked') = (revoked_at_ms IS NOT NULL))
);

-- One session per worker process start. A new session replaces the
-- worker's previous one (generation + 1, unique per worker, so two
-- concurrent registrations cannot both become current); only an active
-- session whose lease has not passed in database time gets new work.
CREATE TABLE qinglong.worker_sessions (
    id                  uuid    NOT NULL PRIMARY KEY,
    worker_id           uuid    NOT NULL REFERENCES qinglong.workers (id),
    generation          bigint  NOT NULL CHECK (generation BETWEEN 1 AND 2147483647),
    labels              jsonb   NOT NULL CHECK (jsonb_typeof(labels) = 'object'),
    capacity            integer NOT NULL CHECK (capacity BETWEEN 1 AND 256),
    running             integer NOT NULL CHECK (running BETWEEN 0 AND 256),
    version             text    NOT NULL CHECK (length(version) <= 64),
    state               text    NOT NULL CHECK (state IN ('active', 'draining', 'replaced', 'expired')),
    created_at_ms       bigint  NOT NULL CHECK (created_at_ms >= 0),
    heartbeat_at_ms     bigint  NOT NULL CHECK (heartbeat_at_ms >= created_at_ms),
    lease_expires_at_ms bigint  NOT NULL CHECK (lease_expires_at_ms > heartbeat_at_ms),
    updated_at_ms       bigint  NOT NULL CHECK (updated_at_ms >= created_at_ms),
    CONSTRAINT worker_sessions_generation_key UNIQUE (worker_id, generation)
);

-- The sweep finds live sessions whose lease passed without visiting the
-- others.
CREATE INDEX worker_sessions_live_expiry_idx ON qinglong.worker_sessions (lease_expires_at_ms)
    WHERE state IN ('active', 'draining');

-- Run leases live on the attempt. The lease is named by (attempt id, token
-- digest, lease version): the raw token stays with the worker, so the old
-- uuid lease_token column is never used and must stay NULL. worker_id
-- becomes the worker's uuid (no row ever set it before).
ALTER TABLE qinglong.attempts DROP CONSTRAINT attempts_lease_shape;
ALTER TABLE qinglong.attempts DROP CONSTRAINT attempts_worker_id_check;
ALTER TABLE qinglong.attempts ALTER COLUMN worker_id TYPE uuid USING worker_id::uuid;
ALTER TABLE qinglong.attempts
    ADD COLUMN lease_token_sha256 text CHECK (lease_token_sha256 ~ '^[0-9a-f]{64}$'),
    ADD COLUMN deadline_at_ms     bigint,
    ADD COLUMN available_at_ms    bigint CHECK (available_at_ms >= 0);
-- Only the digest is ever stored, and a lease that can expire has one. An
-- ended attempt keeps its digest and version (so a replayed completion is
-- recognised) but no expiry (so the sweep never sees it again); the other
-- grant fields are set and cleared together by the statements that grant
-- and release (sql/workers_*.sql).
ALTER TABLE qinglong.attempts ADD CONSTRAINT attempts_lease_shape CHECK (
    lease_token IS NULL AND (lease_expires_at_ms IS NULL OR lease_token_sha256 IS NOT NULL)
);

-- Dispatch finds the task revisions that have queued Runs by a skip scan
-- (one probe per revision, however many Runs each holds), keeps those
-- whose placement the pulling session satisfies, and reads only their
-- oldest queued Runs (run ids are UUIDv7, so admission order): a backlog
-- of Runs placed elsewhere is never walked.
CREATE INDEX runs_queued_revision_idx ON qinglong.runs (task_id, task_revision, id)
    WHERE state = 'queued';

-- The sweep requeues retry_wait Runs whose backoff passed.
CREATE INDEX attempts_backoff_idx ON qinglong.attempts (available_at_ms)
    WHERE state = 'claimed' AND lease_token_sha256 IS NULL AND available_at_ms IS NOT NULL;

-- A replayed pull finds the grants of its offer.
CREATE INDEX attempts_offer_idx ON qinglong.attempts (offer_id) WHERE offer_id IS NOT NULL;

-- A session's live grants, for its free slots.
CREATE INDEX attempts_session_live_idx ON qinglong.attempts (session_id)
    WHERE state IN ('claimed', 'starting', 'running') AND session_id IS NOT NULL;

-- Log chunks of an attempt, in offset order; each starts where the bytes
-- held so far end, so a replay can neither duplicate nor reorder output.
-- No foreign key to attempts, for the reason attempts has none to runs:
-- chunks are written only under a live lease of their attempt and no role
-- may DELETE an attempt.
CREATE TABLE qinglong.run_log_chunks (
    attempt_id    uuid   NOT NULL,
    log_offset    bigint NOT NULL CHECK (log_offset >= 0),
    bytes         bytea  NOT NULL CHECK (length(bytes) BETWEEN 1 AND 1048576),
    created_at_ms bigint NOT NULL CHECK (created_at_ms >= 0),
    PRIMARY KEY (attempt_id, log_offset)
);

-- Startup recovery pages through the unfinished Runs. A lost Run is now
-- finished (the sweep ends it: retried as a new Attempt of a queued Run, or
-- lost for good), so it leaves the index the scan walks: a long-lived
-- cluster's lost Runs must not make every start slower.
DROP INDEX qinglong.runs_unfinished_idx;
CREATE INDEX runs_unfinished_idx ON qinglong.runs (id)
    WHERE state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost');
