-- sqlite-0001-local-core: the whole single-node schema. Applied migrations
-- are never edited; a change is a new file.

-- Applied history; readiness demands it equal the code's stream exactly.
CREATE TABLE ql_schema_migrations (
  id            TEXT PRIMARY KEY,
  checksum      TEXT NOT NULL CHECK (checksum LIKE 'sha256:%' AND length(checksum) = 71),
  applied_at_ms INTEGER NOT NULL
) STRICT;

-- Exactly one capability row; each migration asserts the previous one and
-- advances it in the same transaction.
CREATE TABLE ql_schema_capability (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  name      TEXT NOT NULL,
  version   INTEGER NOT NULL CHECK (version >= 1)
) STRICT;

CREATE TABLE projects (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE,
  status        TEXT NOT NULL CHECK (status IN ('active', 'archived')),
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
) STRICT;

-- Task head: the current revision. The foreign key to the revision is
-- deferred because head and revision are written in one transaction.
CREATE TABLE tasks (
  id               TEXT PRIMARY KEY,
  project_id       TEXT NOT NULL REFERENCES projects (id),
  name             TEXT NOT NULL,
  current_revision INTEGER NOT NULL CHECK (current_revision >= 1),
  created_at_ms    INTEGER NOT NULL,
  updated_at_ms    INTEGER NOT NULL,
  UNIQUE (project_id, name),
  FOREIGN KEY (id, current_revision) REFERENCES task_revisions (task_id, revision) DEFERRABLE INITIALLY DEFERRED
) STRICT;

-- Immutable task revisions; (task_id, mutation_id) makes a replay
-- recognisable.
CREATE TABLE task_revisions (
  task_id        TEXT NOT NULL REFERENCES tasks (id) DEFERRABLE INITIALLY DEFERRED,
  revision       INTEGER NOT NULL CHECK (revision >= 1),
  project_id     TEXT NOT NULL REFERENCES projects (id),
  name           TEXT NOT NULL,
  enabled        INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  spec_json      TEXT NOT NULL CHECK (json_valid(spec_json)),
  content_digest TEXT NOT NULL CHECK (content_digest LIKE 'sha256:%' AND length(content_digest) = 71),
  mutation_id    TEXT NOT NULL,
  created_at_ms  INTEGER NOT NULL,
  PRIMARY KEY (task_id, revision),
  UNIQUE (task_id, mutation_id)
) STRICT;

-- The immutable plan of an enabled task revision, written with it.
CREATE TABLE execution_revisions (
  task_id             TEXT NOT NULL,
  task_revision       INTEGER NOT NULL,
  id                  TEXT NOT NULL UNIQUE,
  project_id          TEXT NOT NULL REFERENCES projects (id),
  task_content_digest TEXT NOT NULL,
  executor            TEXT NOT NULL CHECK (executor IN ('local_process', 'remote_worker')),
  command_json        TEXT NOT NULL CHECK (json_valid(command_json)),
  digest              TEXT NOT NULL CHECK (digest LIKE 'sha256:%' AND length(digest) = 71),
  created_at_ms       INTEGER NOT NULL,
  PRIMARY KEY (task_id, task_revision),
  FOREIGN KEY (task_id, task_revision) REFERENCES task_revisions (task_id, revision)
) STRICT;

-- Trigger head, bound forever to one task.
CREATE TABLE triggers (
  id               TEXT PRIMARY KEY,
  project_id       TEXT NOT NULL REFERENCES projects (id),
  task_id          TEXT NOT NULL REFERENCES tasks (id),
  name             TEXT NOT NULL,
  current_revision INTEGER NOT NULL CHECK (current_revision >= 1),
  created_at_ms    INTEGER NOT NULL,
  updated_at_ms    INTEGER NOT NULL,
  UNIQUE (project_id, name),
  FOREIGN KEY (id, current_revision) REFERENCES trigger_revisions (trigger_id, revision) DEFERRABLE INITIALLY DEFERRED
) STRICT;

-- Immutable trigger revisions, each pinning an exact task revision.
CREATE TABLE trigger_revisions (
  trigger_id          TEXT NOT NULL REFERENCES triggers (id) DEFERRABLE INITIALLY DEFERRED,
  revision            INTEGER NOT NULL CHECK (revision >= 1),
  project_id          TEXT NOT NULL REFERENCES projects (id),
  task_id             TEXT NOT NULL,
  task_revision       INTEGER NOT NULL,
  task_content_digest TEXT NOT NULL,
  name                TEXT NOT NULL,
  enabled             INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  expression          TEXT NOT NULL,
  timezone            TEXT NOT NULL,
  misfire_policy      TEXT NOT NULL CHECK (misfire_policy IN ('skip', 'fire_once')),
  content_digest      TEXT NOT NULL CHECK (content_digest LIKE 'sha256:%' AND length(content_digest) = 71),
  mutation_id         TEXT NOT NULL,
  created_at_ms       INTEGER NOT NULL,
  PRIMARY KEY (trigger_id, revision),
  UNIQUE (trigger_id, mutation_id),
  FOREIGN KEY (task_id, task_revision) REFERENCES task_revisions (task_id, revision)
) STRICT;

-- One schedule row per trigger head. next_fire_at_ms NULL means "must be
-- initialised"; state_version is the compare-and-swap fence every decision
-- commits against. enabled mirrors the current revision (the row is reset on
-- every publish) so the due index can leave disabled triggers out.
CREATE TABLE trigger_schedules (
  trigger_id           TEXT PRIMARY KEY REFERENCES triggers (id),
  project_id           TEXT NOT NULL REFERENCES projects (id),
  trigger_revision     INTEGER NOT NULL,
  enabled              INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  next_fire_at_ms      INTEGER,
  last_scheduled_at_ms INTEGER,
  state_version        INTEGER NOT NULL CHECK (state_version >= 1),
  updated_at_ms        INTEGER NOT NULL,
  FOREIGN KEY (trigger_id, trigger_revision) REFERENCES trigger_revisions (trigger_id, revision)
) STRICT;

-- The take reads this index in claim order (NULL cursors sort first) and
-- stops after one page, so a round touches O(page) rows.
CREATE INDEX trigger_schedules_due ON trigger_schedules (next_fire_at_ms, project_id, trigger_id) WHERE enabled = 1;

CREATE TABLE runs (
  id                    TEXT PRIMARY KEY,
  project_id            TEXT NOT NULL REFERENCES projects (id),
  task_id               TEXT NOT NULL,
  task_revision         INTEGER NOT NULL,
  trigger_id            TEXT NOT NULL REFERENCES triggers (id),
  trigger_revision      INTEGER NOT NULL,
  execution_revision_id TEXT NOT NULL REFERENCES execution_revisions (id),
  idempotency_key       TEXT NOT NULL UNIQUE,
  scheduled_for_ms      INTEGER NOT NULL,
  state                 TEXT NOT NULL CHECK (state IN ('created', 'queued', 'dispatching', 'running', 'waiting_approval', 'retry_wait', 'succeeded', 'failed', 'cancelled', 'timed_out', 'lost')),
  version               INTEGER NOT NULL CHECK (version >= 1),
  last_event_seq        INTEGER NOT NULL CHECK (last_event_seq >= 1),
  created_at_ms         INTEGER NOT NULL,
  queued_at_ms          INTEGER NOT NULL,
  updated_at_ms         INTEGER NOT NULL,
  finished_at_ms        INTEGER,
  FOREIGN KEY (trigger_id, trigger_revision) REFERENCES trigger_revisions (trigger_id, revision),
  FOREIGN KEY (task_id, task_revision) REFERENCES execution_revisions (task_id, task_revision)
) STRICT;

CREATE INDEX runs_trigger ON runs (trigger_id, id);
CREATE INDEX runs_project ON runs (project_id, id);

-- owner is the local executor instance that started the attempt: recovery
-- marks lost only attempts whose owner process is gone.
CREATE TABLE attempts (
  id             TEXT PRIMARY KEY,
  run_id         TEXT NOT NULL REFERENCES runs (id),
  number         INTEGER NOT NULL CHECK (number >= 1),
  executor       TEXT NOT NULL CHECK (executor IN ('local_process', 'remote_worker')),
  state          TEXT NOT NULL CHECK (state IN ('claimed', 'starting', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled', 'lost')),
  owner          TEXT,
  pid            INTEGER,
  exit_code      INTEGER,
  error_code     TEXT NOT NULL DEFAULT '',
  created_at_ms  INTEGER NOT NULL,
  started_at_ms  INTEGER,
  finished_at_ms INTEGER,
  log_path       TEXT NOT NULL DEFAULT '',
  log_bytes      INTEGER NOT NULL DEFAULT 0 CHECK (log_bytes >= 0),
  log_truncated  INTEGER NOT NULL DEFAULT 0 CHECK (log_truncated IN (0, 1)),
  UNIQUE (run_id, number),
  CHECK (state <> 'claimed' OR owner IS NULL),
  CHECK (state NOT IN ('starting', 'running') OR owner IS NOT NULL)
) STRICT;

-- The dispatcher's queue: claimed attempts in admission order.
CREATE INDEX attempts_claimed ON attempts (id) WHERE state = 'claimed';
-- Recovery's question: which owners hold live attempts.
CREATE INDEX attempts_live_owner ON attempts (owner) WHERE state IN ('starting', 'running');

CREATE TABLE run_events (
  run_id        TEXT NOT NULL REFERENCES runs (id),
  seq           INTEGER NOT NULL CHECK (seq >= 1),
  name          TEXT NOT NULL,
  payload       TEXT NOT NULL CHECK (json_valid(payload) AND json_type(payload) = 'object'),
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
) STRICT;

-- History and revisions are append-only: the single-node counterpart of the
-- cluster's privilege matrix, which grants no UPDATE or DELETE on them.
CREATE TRIGGER run_events_append_only_update BEFORE UPDATE ON run_events
BEGIN SELECT RAISE(ABORT, 'run_events is append-only'); END;

CREATE TRIGGER run_events_append_only_delete BEFORE DELETE ON run_events
BEGIN SELECT RAISE(ABORT, 'run_events is append-only'); END;

CREATE TRIGGER task_revisions_immutable BEFORE UPDATE ON task_revisions
BEGIN SELECT RAISE(ABORT, 'task_revisions are immutable'); END;

CREATE TRIGGER execution_revisions_immutable BEFORE UPDATE ON execution_revisions
BEGIN SELECT RAISE(ABORT, 'execution_revisions are immutable'); END;

CREATE TRIGGER trigger_revisions_immutable BEFORE UPDATE ON trigger_revisions
BEGIN SELECT RAISE(ABORT, 'trigger_revisions are immutable'); END;
