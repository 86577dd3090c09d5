PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE ql_schema_migrations (
  id            TEXT PRIMARY KEY,
  checksum      TEXT NOT NULL CHECK (checksum LIKE 'sha256:%' AND length(checksum) = 71),
  applied_at_ms INTEGER NOT NULL
) STRICT;
INSERT INTO ql_schema_migrations VALUES('sqlite-0001-local-core','sha256:7c8025e34134a908b12562d865e009326f4785af1f2b33fa250fbada015fbf64',1796360056544);
INSERT INTO ql_schema_migrations VALUES('sqlite-0002-occurrence-ledger','sha256:5b7ce5fea9caf053e659c59e6c015216bde1eb9b13d559ba10228d53f6e910b9',1796360056546);
INSERT INTO ql_schema_migrations VALUES('sqlite-0003-trigger-policies','sha256:2617ebbec2ceb4f4456fc0858d987dd3c6349f7efc26a0196003161ab3c81688',1796360056547);
INSERT INTO ql_schema_migrations VALUES('sqlite-0004-overlap-policy','sha256:5da6b2faa9782836b5f38820249f0445925dfe4f2d78b7ad4a0c9573bc7537f2',1796360056550);
INSERT INTO ql_schema_migrations VALUES('sqlite-0005-api-tokens','sha256:491f445c4bd2f73f2af7b8c2002f95e1da7b57cf49a70ae8f21f2e99a6196f55',1796360056551);
INSERT INTO ql_schema_migrations VALUES('sqlite-0006-notification-outbox','sha256:7142dd1848b12af903282c0ba7efffb59f7594d8d217bdbfddad9f9270eda2a6',1796360056551);
INSERT INTO ql_schema_migrations VALUES('sqlite-0007-retention','sha256:ca36635ce26073568e906ae3dcc4548213dcbb1481cc541a62f32b0da7b83474',1796360056552);
INSERT INTO ql_schema_migrations VALUES('sqlite-0008-monitor','sha256:075282d26909bd5225dbf3725ec90f4bf964bf748b49e71eb05d41ffac7209fe',1796360056552);
INSERT INTO ql_schema_migrations VALUES('sqlite-0009-republished-ledger','sha256:3f2983ff5c6681312ff606d16730ad98838c4ab682088a248f33cc4743a2265c',1796360056555);
INSERT INTO ql_schema_migrations VALUES('sqlite-0010-publish-audit','sha256:cd86a6fb3ead81fa274e5bec165ba887feddde9cffeb834166fc665ea82b3690',1796360056556);
INSERT INTO ql_schema_migrations VALUES('sqlite-0011-console-users','sha256:73467fd9691c34dd427b4073fc302cd2c08bd4ef2c26ace8991aac64a1d134f8',1796360056556);
INSERT INTO ql_schema_migrations VALUES('sqlite-0012-rerun','sha256:d1e6932a6ead5673497a41bc0ee0bab075957cfab52acdc8de18fb5760c616f5',1796360056557);
INSERT INTO ql_schema_migrations VALUES('sqlite-0013-attempt-error-message','sha256:34f17250657a86cccee6118ae4681c2372e6499d3b15a4967f5fffd1eba247e0',1796360056558);
INSERT INTO ql_schema_migrations VALUES('sqlite-0014-project-archived-ledger','sha256:f7adb53eade571b2a89e383947443542a2202f8cdbdeaac2e48b0189171b6318',1796360056560);
INSERT INTO ql_schema_migrations VALUES('sqlite-0015-lost-found-at','sha256:d93a5c6aec5a406eff3d529d54984e071b85b32e02a35579912bb73b1d268599',1796360056561);
INSERT INTO ql_schema_migrations VALUES('sqlite-0016-retention-lost','sha256:ba5ca121c8331fe8dda64f5f36dab23d6f88ab42bdb7cd7c6aaa9a7cc43e90a4',1796360056561);
INSERT INTO ql_schema_migrations VALUES('sqlite-0017-outbox-channel-due','sha256:ae9f93a385508b5b1218b72dc6ac5d944386ec4a544f650a4c5805b26227f717',1796360056562);
INSERT INTO ql_schema_migrations VALUES('sqlite-0018-outbox-listing','sha256:64ead7d1e9acbbb5576ed9aeca66e5576620fea23be997a2ac83c5b9c2c0c3fa',1796360056562);
INSERT INTO ql_schema_migrations VALUES('sqlite-0019-attempt-retry','sha256:89b9f0c3d6d56a2af3777dd832490f065ab8da5688d27613466ab6b64d613e5f',1796360056563);
CREATE TABLE ql_schema_capability (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  name      TEXT NOT NULL,
  version   INTEGER NOT NULL CHECK (version >= 1)
) STRICT;
INSERT INTO ql_schema_capability VALUES(1,'local-core',19);
CREATE TABLE projects (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE,
  status        TEXT NOT NULL CHECK (status IN ('active', 'archived')),
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
, notifications_json TEXT CHECK (notifications_json IS NULL OR json_valid(notifications_json))) STRICT;
INSERT INTO projects VALUES('01a23f67-2f05-77a4-ad5b-99435d7be5ec','released','active',1796360056581,1796360056581,NULL);
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
INSERT INTO tasks VALUES('01a23f67-2f05-784e-a001-4663ad582adf','01a23f67-2f05-77a4-ad5b-99435d7be5ec','flaky',1,1796360056581,1796360056581);
INSERT INTO tasks VALUES('01a23f67-2f05-78db-a7ab-c95237ffb985','01a23f67-2f05-77a4-ad5b-99435d7be5ec','long',1,1796360056581,1796360056581);
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
INSERT INTO task_revisions VALUES('01a23f67-2f05-784e-a001-4663ad582adf',1,'01a23f67-2f05-77a4-ad5b-99435d7be5ec','flaky',1,'{"name":"flaky","enabled":true,"command":{"format":1,"mode":"shell","shell":"/bin/sh","script":"echo about to fail; exit 3","timeoutMs":30000,"retry":{"maxAttempts":2,"backoffMs":20000,"on":["failed"]}}}','sha256:b2c6da7b0771aa241392f0a9b965cf3a50359d1edca9524d023c270528c68992','apply:task:0:sha256:b2c6da7b0771aa241392f0a9b965cf3a50359d1edca9524d023c270528c68992',1796360056581);
INSERT INTO task_revisions VALUES('01a23f67-2f05-78db-a7ab-c95237ffb985',1,'01a23f67-2f05-77a4-ad5b-99435d7be5ec','long',1,'{"name":"long","enabled":true,"command":{"format":1,"mode":"shell","shell":"/bin/sh","script":"echo started; sleep 30","timeoutMs":300000,"retry":{"maxAttempts":2,"backoffMs":5000,"on":["lost"]}}}','sha256:8b25691d97e4014de1e61ff946e27d2bb62346bfbbfe059b835becb4d8268bae','apply:task:0:sha256:8b25691d97e4014de1e61ff946e27d2bb62346bfbbfe059b835becb4d8268bae',1796360056581);
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
INSERT INTO execution_revisions VALUES('01a23f67-2f05-784e-a001-4663ad582adf',1,'qltd:v1:1:sha256:b2c6da7b0771aa241392f0a9b965cf3a50359d1edca9524d023c270528c68992','01a23f67-2f05-77a4-ad5b-99435d7be5ec','sha256:b2c6da7b0771aa241392f0a9b965cf3a50359d1edca9524d023c270528c68992','local_process','{"format":1,"mode":"shell","shell":"/bin/sh","script":"echo about to fail; exit 3","timeoutMs":30000,"retry":{"maxAttempts":2,"backoffMs":20000,"on":["failed"]}}','sha256:d8644f34c019bf61a9c11d93a40b698327f9f96983fc39fe920c35d1d5192937',1796360056581);
INSERT INTO execution_revisions VALUES('01a23f67-2f05-78db-a7ab-c95237ffb985',1,'qltd:v1:1:sha256:8b25691d97e4014de1e61ff946e27d2bb62346bfbbfe059b835becb4d8268bae','01a23f67-2f05-77a4-ad5b-99435d7be5ec','sha256:8b25691d97e4014de1e61ff946e27d2bb62346bfbbfe059b835becb4d8268bae','local_process','{"format":1,"mode":"shell","shell":"/bin/sh","script":"echo started; sleep 30","timeoutMs":300000,"retry":{"maxAttempts":2,"backoffMs":5000,"on":["lost"]}}','sha256:c0fa99d0f4143ca2a9dae43d1b1d1c075c2be206ca8a3f657c63fd9abac6b851',1796360056581);
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
INSERT INTO triggers VALUES('01a23f67-2f06-7208-ab9e-b7f948c91cc2','01a23f67-2f05-77a4-ad5b-99435d7be5ec','01a23f67-2f05-784e-a001-4663ad582adf','flaky-yearly',1,1796360056581,1796360056581);
INSERT INTO triggers VALUES('01a23f67-2f06-7262-8e9a-1e2e648a273e','01a23f67-2f05-77a4-ad5b-99435d7be5ec','01a23f67-2f05-78db-a7ab-c95237ffb985','long-yearly',1,1796360056581,1796360056581);
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
  created_at_ms       INTEGER NOT NULL, jitter_ms INTEGER NOT NULL DEFAULT 0 CHECK (jitter_ms BETWEEN 0 AND 3600000), start_at_ms INTEGER CHECK (start_at_ms > 0), end_at_ms INTEGER CHECK (end_at_ms > 0), catch_up_window_ms INTEGER CHECK (catch_up_window_ms BETWEEN 0 AND 31622400000), overlap_policy TEXT CHECK (overlap_policy IN ('skip', 'queue_one', 'cancel_previous')),
  PRIMARY KEY (trigger_id, revision),
  UNIQUE (trigger_id, mutation_id),
  FOREIGN KEY (task_id, task_revision) REFERENCES task_revisions (task_id, revision)
) STRICT;
INSERT INTO trigger_revisions VALUES('01a23f67-2f06-7208-ab9e-b7f948c91cc2',1,'01a23f67-2f05-77a4-ad5b-99435d7be5ec','01a23f67-2f05-784e-a001-4663ad582adf',1,'sha256:b2c6da7b0771aa241392f0a9b965cf3a50359d1edca9524d023c270528c68992','flaky-yearly',1,'0 0 1 1 *','UTC','fire_once','sha256:0fee1a60a24b279e9cf1ca195921e0c778bc2ff68e57b92da51144c194e56d1c','apply:trigger:0:sha256:0fee1a60a24b279e9cf1ca195921e0c778bc2ff68e57b92da51144c194e56d1c',1796360056581,0,NULL,NULL,NULL,NULL);
INSERT INTO trigger_revisions VALUES('01a23f67-2f06-7262-8e9a-1e2e648a273e',1,'01a23f67-2f05-77a4-ad5b-99435d7be5ec','01a23f67-2f05-78db-a7ab-c95237ffb985',1,'sha256:8b25691d97e4014de1e61ff946e27d2bb62346bfbbfe059b835becb4d8268bae','long-yearly',1,'0 0 1 1 *','UTC','fire_once','sha256:efedb1bd4f970721a724673a739ae3db48797522cf67cfed81d0885996ec3b32','apply:trigger:0:sha256:efedb1bd4f970721a724673a739ae3db48797522cf67cfed81d0885996ec3b32',1796360056581,0,NULL,NULL,NULL,NULL);
CREATE TABLE trigger_schedules (
  trigger_id           TEXT PRIMARY KEY REFERENCES triggers (id),
  project_id           TEXT NOT NULL REFERENCES projects (id),
  trigger_revision     INTEGER NOT NULL,
  enabled              INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  next_fire_at_ms      INTEGER,
  last_scheduled_at_ms INTEGER,
  state_version        INTEGER NOT NULL CHECK (state_version >= 1),
  updated_at_ms        INTEGER NOT NULL, paused INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)), pause_note TEXT, paused_at_ms INTEGER, resumed_at_ms INTEGER, due_offset_ms INTEGER DEFAULT 0 CHECK (due_offset_ms BETWEEN 0 AND 3600000),
  FOREIGN KEY (trigger_id, trigger_revision) REFERENCES trigger_revisions (trigger_id, revision)
) STRICT;
INSERT INTO trigger_schedules VALUES('01a23f67-2f06-7208-ab9e-b7f948c91cc2','01a23f67-2f05-77a4-ad5b-99435d7be5ec',1,1,1798761600000,NULL,2,1796360056619,0,NULL,NULL,NULL,0);
INSERT INTO trigger_schedules VALUES('01a23f67-2f06-7262-8e9a-1e2e648a273e','01a23f67-2f05-77a4-ad5b-99435d7be5ec',1,1,1798761600000,NULL,2,1796360056619,0,NULL,NULL,NULL,0);
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
  finished_at_ms        INTEGER, due_at_ms INTEGER, waits_for_previous INTEGER NOT NULL DEFAULT 0 CHECK (waits_for_previous IN (0, 1)), rerun_of TEXT,
  FOREIGN KEY (trigger_id, trigger_revision) REFERENCES trigger_revisions (trigger_id, revision),
  FOREIGN KEY (task_id, task_revision) REFERENCES execution_revisions (task_id, task_revision)
) STRICT;
INSERT INTO runs VALUES('01a23f67-3702-78c9-a21f-24021497487b','01a23f67-2f05-77a4-ad5b-99435d7be5ec','01a23f67-2f05-784e-a001-4663ad582adf',1,'01a23f67-2f06-7208-ab9e-b7f948c91cc2',1,'qltd:v1:1:sha256:b2c6da7b0771aa241392f0a9b965cf3a50359d1edca9524d023c270528c68992','ql3:manual:v1:01a23f67-2f06-7208-ab9e-b7f948c91cc2:01a23f67-36ed-7e5c-a6b3-4a826d90d730',1796360058626,'retry_wait',5,5,1796360058626,1796360058626,1796360058875,NULL,1796360058626,0,NULL);
INSERT INTO runs VALUES('01a23f67-3728-739d-881e-80e0895afdd5','01a23f67-2f05-77a4-ad5b-99435d7be5ec','01a23f67-2f05-78db-a7ab-c95237ffb985',1,'01a23f67-2f06-7262-8e9a-1e2e648a273e',1,'qltd:v1:1:sha256:8b25691d97e4014de1e61ff946e27d2bb62346bfbbfe059b835becb4d8268bae','ql3:manual:v1:01a23f67-2f06-7262-8e9a-1e2e648a273e:01a23f67-3711-7157-9979-fb10275da7fc',1796360058664,'retry_wait',5,5,1796360058664,1796360058664,1796360062688,NULL,1796360058664,0,NULL);
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
  log_truncated  INTEGER NOT NULL DEFAULT 0 CHECK (log_truncated IN (0, 1)), error_message TEXT NOT NULL DEFAULT '', available_at_ms INTEGER,
  UNIQUE (run_id, number),
  CHECK (state <> 'claimed' OR owner IS NULL),
  CHECK (state NOT IN ('starting', 'running') OR owner IS NOT NULL)
) STRICT;
INSERT INTO attempts VALUES('01a23f67-3702-78cb-9c86-116d8fa1f79d','01a23f67-3702-78c9-a21f-24021497487b',1,'local_process','failed','01a23f67-2f29-70cb-89f0-6796bdc8bd33',19114,3,'exit_nonzero',1796360058626,1796360058870,1796360058875,'/var/lib/qinglong/qinglong-logs/01a23f67-3702-78cb-9c86-116d8fa1f79d.log',14,0,'',NULL);
INSERT INTO attempts VALUES('01a23f67-3728-739e-b2a8-c65d6a60ec4c','01a23f67-3728-739d-881e-80e0895afdd5',1,'local_process','lost','01a23f67-2f29-70cb-89f0-6796bdc8bd33',19115,NULL,'server_stopped',1796360058664,1796360058872,1796360062688,'/var/lib/qinglong/qinglong-logs/01a23f67-3728-739e-b2a8-c65d6a60ec4c.log',116,0,'',NULL);
INSERT INTO attempts VALUES('01a23f67-37fb-7d31-a00f-74cbc6279ae4','01a23f67-3702-78c9-a21f-24021497487b',2,'local_process','claimed',NULL,NULL,NULL,'',1796360058875,NULL,NULL,'',0,0,'',1796360078875);
INSERT INTO attempts VALUES('01a23f67-46e0-742d-86e7-a38c9f362b1d','01a23f67-3728-739d-881e-80e0895afdd5',2,'local_process','claimed',NULL,NULL,NULL,'',1796360062688,NULL,NULL,'',0,0,'',1796360067688);
CREATE TABLE run_events (
  run_id        TEXT NOT NULL REFERENCES runs (id),
  seq           INTEGER NOT NULL CHECK (seq >= 1),
  name          TEXT NOT NULL,
  payload       TEXT NOT NULL CHECK (json_valid(payload) AND json_type(payload) = 'object'),
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
) STRICT;
INSERT INTO run_events VALUES('01a23f67-3702-78c9-a21f-24021497487b',1,'run.created','{"actor":"root","force":false,"idempotencyKey":"ql3:manual:v1:01a23f67-2f06-7208-ab9e-b7f948c91cc2:01a23f67-36ed-7e5c-a6b3-4a826d90d730","manual":"run_now","requestId":"01a23f67-36ed-7e5c-a6b3-4a826d90d730","scheduledForMs":1796360058626,"triggerId":"01a23f67-2f06-7208-ab9e-b7f948c91cc2","triggerRevision":1}',1796360058626);
INSERT INTO run_events VALUES('01a23f67-3702-78c9-a21f-24021497487b',2,'run.queued','{"attemptId":"01a23f67-3702-78cb-9c86-116d8fa1f79d","executor":"local_process"}',1796360058626);
INSERT INTO run_events VALUES('01a23f67-3728-739d-881e-80e0895afdd5',1,'run.created','{"actor":"root","force":false,"idempotencyKey":"ql3:manual:v1:01a23f67-2f06-7262-8e9a-1e2e648a273e:01a23f67-3711-7157-9979-fb10275da7fc","manual":"run_now","requestId":"01a23f67-3711-7157-9979-fb10275da7fc","scheduledForMs":1796360058664,"triggerId":"01a23f67-2f06-7262-8e9a-1e2e648a273e","triggerRevision":1}',1796360058664);
INSERT INTO run_events VALUES('01a23f67-3728-739d-881e-80e0895afdd5',2,'run.queued','{"attemptId":"01a23f67-3728-739e-b2a8-c65d6a60ec4c","executor":"local_process"}',1796360058664);
INSERT INTO run_events VALUES('01a23f67-3702-78c9-a21f-24021497487b',3,'run.running','{"attemptId":"01a23f67-3702-78cb-9c86-116d8fa1f79d"}',1796360058870);
INSERT INTO run_events VALUES('01a23f67-3728-739d-881e-80e0895afdd5',3,'run.running','{"attemptId":"01a23f67-3728-739e-b2a8-c65d6a60ec4c"}',1796360058872);
INSERT INTO run_events VALUES('01a23f67-3702-78c9-a21f-24021497487b',4,'attempt.started','{"attemptId":"01a23f67-3702-78cb-9c86-116d8fa1f79d","pid":19114}',1796360058874);
INSERT INTO run_events VALUES('01a23f67-3702-78c9-a21f-24021497487b',5,'run.retry_wait','{"attempt":1,"attemptId":"01a23f67-3702-78cb-9c86-116d8fa1f79d","availableAtMs":1796360078875,"errorCode":"exit_nonzero","exitCode":3,"nextAttempt":2,"nextAttemptId":"01a23f67-37fb-7d31-a00f-74cbc6279ae4","outcome":"failed"}',1796360058875);
INSERT INTO run_events VALUES('01a23f67-3728-739d-881e-80e0895afdd5',4,'attempt.started','{"attemptId":"01a23f67-3728-739e-b2a8-c65d6a60ec4c","pid":19115}',1796360058876);
INSERT INTO run_events VALUES('01a23f67-3728-739d-881e-80e0895afdd5',5,'run.retry_wait','{"attempt":1,"attemptId":"01a23f67-3728-739e-b2a8-c65d6a60ec4c","availableAtMs":1796360067688,"errorCode":"server_stopped","nextAttempt":2,"nextAttemptId":"01a23f67-46e0-742d-86e7-a38c9f362b1d","outcome":"lost"}',1796360062688);
CREATE TABLE api_tokens (
    id              TEXT    NOT NULL PRIMARY KEY,
    name            TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 128),
    scope           TEXT    NOT NULL CHECK (scope IN ('read', 'operate', 'admin')),
    digest          BLOB    NOT NULL UNIQUE CHECK (length(digest) = 32),
    created_at_ms   INTEGER NOT NULL CHECK (created_at_ms >= 0),
    expires_at_ms   INTEGER CHECK (expires_at_ms > created_at_ms),
    revoked_at_ms   INTEGER CHECK (revoked_at_ms >= created_at_ms),
    last_used_at_ms INTEGER CHECK (last_used_at_ms >= 0)
) STRICT;
CREATE TABLE notification_outbox (
  id                 TEXT PRIMARY KEY,
  project_id         TEXT NOT NULL REFERENCES projects (id),
  run_id             TEXT,
  rule_key           TEXT NOT NULL,
  subject            TEXT NOT NULL,
  event              TEXT NOT NULL,
  channel_json       TEXT NOT NULL CHECK (json_valid(channel_json)),
  payload_json       TEXT NOT NULL CHECK (json_valid(payload_json)),
  state              TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'dead')),
  attempts           INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at_ms INTEGER NOT NULL,
  last_error         TEXT,
  created_at_ms      INTEGER NOT NULL,
  updated_at_ms      INTEGER NOT NULL,
  delivered_at_ms    INTEGER,
  UNIQUE (rule_key, subject)
) STRICT;
CREATE TABLE IF NOT EXISTS "trigger_schedule_audit" (
  id         INTEGER PRIMARY KEY,
  trigger_id TEXT NOT NULL REFERENCES triggers (id),
  action     TEXT NOT NULL CHECK (action IN ('pause', 'resume', 'enable', 'disable')),
  actor      TEXT NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
  note       TEXT CHECK (length(note) <= 1000),
  at_ms      INTEGER NOT NULL
) STRICT;
CREATE TABLE publish_audit (
  id       INTEGER PRIMARY KEY,
  project  TEXT NOT NULL CHECK (length(project) BETWEEN 1 AND 128),
  actor    TEXT NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
  summary  TEXT NOT NULL CHECK (length(summary) <= 1000),
  at_ms    INTEGER NOT NULL
) STRICT;
CREATE TABLE console_users (
    id                TEXT    NOT NULL PRIMARY KEY,
    name              TEXT    NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 128),
    role              TEXT    NOT NULL CHECK (role IN ('viewer', 'operator', 'owner')),
    password_hash     TEXT    NOT NULL CHECK (password_hash LIKE '$argon2id$%'),
    created_at_ms     INTEGER NOT NULL CHECK (created_at_ms >= 0),
    disabled_at_ms    INTEGER CHECK (disabled_at_ms >= created_at_ms),
    last_signin_at_ms INTEGER CHECK (last_signin_at_ms >= 0)
) STRICT;
CREATE TABLE IF NOT EXISTS "occurrence_ledger" (
  trigger_id            TEXT NOT NULL REFERENCES triggers (id),
  seq                   INTEGER NOT NULL CHECK (seq >= 1),
  trigger_revision      INTEGER NOT NULL CHECK (trigger_revision >= 1),
  reason                TEXT NOT NULL CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap', 'republished', 'project_archived')),
  first_scheduled_at_ms INTEGER NOT NULL,
  last_scheduled_at_ms  INTEGER NOT NULL CHECK (last_scheduled_at_ms >= first_scheduled_at_ms),
  occurrence_count      INTEGER NOT NULL CHECK (occurrence_count >= 1),
  at_least              INTEGER NOT NULL CHECK (at_least IN (0, 1)),
  recorded_at_ms        INTEGER NOT NULL,
  PRIMARY KEY (trigger_id, seq)
) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS "occurrence_ledger_compacted" (
  trigger_id            TEXT NOT NULL REFERENCES triggers (id),
  reason                TEXT NOT NULL CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap', 'republished', 'project_archived')),
  trigger_revision      INTEGER NOT NULL CHECK (trigger_revision >= 1),
  first_scheduled_at_ms INTEGER NOT NULL,
  last_scheduled_at_ms  INTEGER NOT NULL CHECK (last_scheduled_at_ms >= first_scheduled_at_ms),
  occurrence_count      INTEGER NOT NULL CHECK (occurrence_count >= 1),
  at_least              INTEGER NOT NULL CHECK (at_least IN (0, 1)),
  recorded_at_ms        INTEGER NOT NULL,
  PRIMARY KEY (trigger_id, reason)
) STRICT, WITHOUT ROWID;
CREATE INDEX runs_trigger ON runs (trigger_id, id);
CREATE INDEX runs_project ON runs (project_id, id);
CREATE INDEX attempts_claimed ON attempts (id) WHERE state = 'claimed';
CREATE INDEX attempts_live_owner ON attempts (owner) WHERE state IN ('starting', 'running');
CREATE INDEX trigger_schedules_due ON trigger_schedules ((next_fire_at_ms + due_offset_ms), project_id, trigger_id, next_fire_at_ms, due_offset_ms, enabled, paused)
  WHERE enabled = 1 AND paused = 0 AND (next_fire_at_ms IS NULL OR due_offset_ms IS NOT NULL);
CREATE INDEX runs_unfinished_trigger ON runs (trigger_id, id)
  WHERE state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost');
CREATE UNIQUE INDEX api_tokens_active_name ON api_tokens (name) WHERE revoked_at_ms IS NULL;
CREATE INDEX notification_outbox_due ON notification_outbox (next_attempt_at_ms) WHERE state = 'pending';
CREATE INDEX notification_outbox_state ON notification_outbox (state, created_at_ms);
CREATE INDEX attempts_logs ON attempts (finished_at_ms, log_bytes) WHERE log_path <> '';
CREATE INDEX runs_unfinished_state ON runs (state)
  WHERE state IN ('created', 'queued', 'dispatching', 'running', 'waiting_approval', 'retry_wait');
CREATE INDEX trigger_schedule_audit_trigger ON trigger_schedule_audit (trigger_id, id);
CREATE INDEX runs_finished ON runs (finished_at_ms) WHERE state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost');
CREATE INDEX notification_outbox_channel_due ON notification_outbox (project_id, json_extract(channel_json, '$.name'), next_attempt_at_ms, id)
  WHERE state = 'pending';
CREATE INDEX notification_outbox_state_listing ON notification_outbox (state, id);
CREATE INDEX notification_outbox_project_listing ON notification_outbox (project_id, id);
CREATE INDEX attempts_backoff ON attempts (available_at_ms) WHERE state = 'claimed' AND available_at_ms IS NOT NULL;
CREATE TRIGGER run_events_append_only_update BEFORE UPDATE ON run_events
BEGIN SELECT RAISE(ABORT, 'run_events is append-only'); END;
CREATE TRIGGER task_revisions_immutable BEFORE UPDATE ON task_revisions
BEGIN SELECT RAISE(ABORT, 'task_revisions are immutable'); END;
CREATE TRIGGER execution_revisions_immutable BEFORE UPDATE ON execution_revisions
BEGIN SELECT RAISE(ABORT, 'execution_revisions are immutable'); END;
CREATE TRIGGER trigger_revisions_immutable BEFORE UPDATE ON trigger_revisions
BEGIN SELECT RAISE(ABORT, 'trigger_revisions are immutable'); END;
CREATE TRIGGER attempts_delete_ended_only BEFORE DELETE ON attempts
WHEN OLD.state IN ('claimed', 'starting', 'running')
BEGIN SELECT RAISE(ABORT, 'an open attempt is kept'); END;
CREATE TRIGGER run_events_delete_ended_only BEFORE DELETE ON run_events
WHEN (SELECT state FROM runs WHERE id = OLD.run_id) NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
BEGIN SELECT RAISE(ABORT, 'run_events of a run that has not ended are kept'); END;
CREATE TRIGGER runs_delete_ended_only BEFORE DELETE ON runs
WHEN OLD.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
BEGIN SELECT RAISE(ABORT, 'a run that has not ended is kept'); END;
COMMIT;
