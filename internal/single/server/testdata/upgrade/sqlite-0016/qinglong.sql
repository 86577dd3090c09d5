PRAGMA auto_vacuum = INCREMENTAL;
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE ql_schema_migrations (
  id            TEXT PRIMARY KEY,
  checksum      TEXT NOT NULL CHECK (checksum LIKE 'sha256:%' AND length(checksum) = 71),
  applied_at_ms INTEGER NOT NULL
) STRICT;
INSERT INTO ql_schema_migrations VALUES('sqlite-0001-local-core','sha256:7c8025e34134a908b12562d865e009326f4785af1f2b33fa250fbada015fbf64',1796325194073);
INSERT INTO ql_schema_migrations VALUES('sqlite-0002-occurrence-ledger','sha256:5b7ce5fea9caf053e659c59e6c015216bde1eb9b13d559ba10228d53f6e910b9',1796325194086);
INSERT INTO ql_schema_migrations VALUES('sqlite-0003-trigger-policies','sha256:2617ebbec2ceb4f4456fc0858d987dd3c6349f7efc26a0196003161ab3c81688',1796325194090);
INSERT INTO ql_schema_migrations VALUES('sqlite-0004-overlap-policy','sha256:5da6b2faa9782836b5f38820249f0445925dfe4f2d78b7ad4a0c9573bc7537f2',1796325194106);
INSERT INTO ql_schema_migrations VALUES('sqlite-0005-api-tokens','sha256:491f445c4bd2f73f2af7b8c2002f95e1da7b57cf49a70ae8f21f2e99a6196f55',1796325194108);
INSERT INTO ql_schema_migrations VALUES('sqlite-0006-notification-outbox','sha256:7142dd1848b12af903282c0ba7efffb59f7594d8d217bdbfddad9f9270eda2a6',1796325194111);
INSERT INTO ql_schema_migrations VALUES('sqlite-0007-retention','sha256:ca36635ce26073568e906ae3dcc4548213dcbb1481cc541a62f32b0da7b83474',1796325194113);
INSERT INTO ql_schema_migrations VALUES('sqlite-0008-monitor','sha256:075282d26909bd5225dbf3725ec90f4bf964bf748b49e71eb05d41ffac7209fe',1796325194125);
INSERT INTO ql_schema_migrations VALUES('sqlite-0009-republished-ledger','sha256:3f2983ff5c6681312ff606d16730ad98838c4ab682088a248f33cc4743a2265c',1796325194135);
INSERT INTO ql_schema_migrations VALUES('sqlite-0010-publish-audit','sha256:cd86a6fb3ead81fa274e5bec165ba887feddde9cffeb834166fc665ea82b3690',1796325194140);
INSERT INTO ql_schema_migrations VALUES('sqlite-0011-console-users','sha256:73467fd9691c34dd427b4073fc302cd2c08bd4ef2c26ace8991aac64a1d134f8',1796325194147);
INSERT INTO ql_schema_migrations VALUES('sqlite-0012-rerun','sha256:d1e6932a6ead5673497a41bc0ee0bab075957cfab52acdc8de18fb5760c616f5',1796325194155);
INSERT INTO ql_schema_migrations VALUES('sqlite-0013-attempt-error-message','sha256:34f17250657a86cccee6118ae4681c2372e6499d3b15a4967f5fffd1eba247e0',1796325194167);
INSERT INTO ql_schema_migrations VALUES('sqlite-0014-project-archived-ledger','sha256:f7adb53eade571b2a89e383947443542a2202f8cdbdeaac2e48b0189171b6318',1796325194189);
INSERT INTO ql_schema_migrations VALUES('sqlite-0015-lost-found-at','sha256:d93a5c6aec5a406eff3d529d54984e071b85b32e02a35579912bb73b1d268599',1796325194208);
INSERT INTO ql_schema_migrations VALUES('sqlite-0016-retention-lost','sha256:ba5ca121c8331fe8dda64f5f36dab23d6f88ab42bdb7cd7c6aaa9a7cc43e90a4',1796325194213);
CREATE TABLE ql_schema_capability (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  name      TEXT NOT NULL,
  version   INTEGER NOT NULL CHECK (version >= 1)
) STRICT;
INSERT INTO ql_schema_capability VALUES(1,'local-core',16);
CREATE TABLE projects (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE,
  status        TEXT NOT NULL CHECK (status IN ('active', 'archived')),
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
, notifications_json TEXT CHECK (notifications_json IS NULL OR json_valid(notifications_json))) STRICT;
INSERT INTO projects VALUES('01a23d53-3a02-717d-86b1-ce1f3f9975ca','legacy','active',1796325194241,1796325194241,'{"channels":[{"name":"hook","kind":"webhook","url":"http://127.0.0.1:1/unreachable"}],"rules":[{"on":"failed","channel":"hook","key":"sha256:92835843a6b101fc243ba669051c52aebb88abda29493897121921b79c94a160"},{"on":"lost","channel":"hook","key":"sha256:a72987dcd93bc01f70bf14ca509c9a66368318701dba5e60a6e38e46c817bb7e"}]}');
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
INSERT INTO tasks VALUES('01a23d53-3a02-749b-ba34-c5b7b5136834','01a23d53-3a02-717d-86b1-ce1f3f9975ca','ok',1,1796325194241,1796325194241);
INSERT INTO tasks VALUES('01a23d53-3a02-7574-bb9f-17bea38c6d5c','01a23d53-3a02-717d-86b1-ce1f3f9975ca','bad',1,1796325194241,1796325194241);
INSERT INTO tasks VALUES('01a23d53-3a02-75a1-92bb-49a540cde000','01a23d53-3a02-717d-86b1-ce1f3f9975ca','slow',1,1796325194241,1796325194241);
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
INSERT INTO task_revisions VALUES('01a23d53-3a02-749b-ba34-c5b7b5136834',1,'01a23d53-3a02-717d-86b1-ce1f3f9975ca','ok',1,'{"name":"ok","enabled":true,"command":{"format":1,"mode":"shell","shell":"/bin/sh","script":"echo \"ok $QL_RUN_ID\"","timeoutMs":30000}}','sha256:7f5895fbc20aacefc092f9c01de125ea2675c05172e2356089cbef880e057c6c','apply:task:0:sha256:7f5895fbc20aacefc092f9c01de125ea2675c05172e2356089cbef880e057c6c',1796325194241);
INSERT INTO task_revisions VALUES('01a23d53-3a02-7574-bb9f-17bea38c6d5c',1,'01a23d53-3a02-717d-86b1-ce1f3f9975ca','bad',1,'{"name":"bad","enabled":true,"command":{"format":1,"mode":"shell","shell":"/bin/sh","script":"echo \"about to fail\"; exit 3","timeoutMs":30000}}','sha256:cd058546d3ac16d2e5a1ed1e2a598aa9660640529331204312eb4fe810fc79c1','apply:task:0:sha256:cd058546d3ac16d2e5a1ed1e2a598aa9660640529331204312eb4fe810fc79c1',1796325194241);
INSERT INTO task_revisions VALUES('01a23d53-3a02-75a1-92bb-49a540cde000',1,'01a23d53-3a02-717d-86b1-ce1f3f9975ca','slow',1,'{"name":"slow","enabled":true,"command":{"format":1,"mode":"shell","shell":"/bin/sh","script":"echo started; sleep 300","timeoutMs":600000}}','sha256:eb08d3efaccbca6578da38b8dd34c483f1853d420dc506e9702ab261ac7feba4','apply:task:0:sha256:eb08d3efaccbca6578da38b8dd34c483f1853d420dc506e9702ab261ac7feba4',1796325194241);
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
INSERT INTO execution_revisions VALUES('01a23d53-3a02-749b-ba34-c5b7b5136834',1,'qltd:v1:1:sha256:7f5895fbc20aacefc092f9c01de125ea2675c05172e2356089cbef880e057c6c','01a23d53-3a02-717d-86b1-ce1f3f9975ca','sha256:7f5895fbc20aacefc092f9c01de125ea2675c05172e2356089cbef880e057c6c','local_process','{"format":1,"mode":"shell","shell":"/bin/sh","script":"echo \"ok $QL_RUN_ID\"","timeoutMs":30000}','sha256:b5e17ce09cbb5c53e89747ef593f9956cfd8aa470a4312f945af97dec78fc10b',1796325194241);
INSERT INTO execution_revisions VALUES('01a23d53-3a02-7574-bb9f-17bea38c6d5c',1,'qltd:v1:1:sha256:cd058546d3ac16d2e5a1ed1e2a598aa9660640529331204312eb4fe810fc79c1','01a23d53-3a02-717d-86b1-ce1f3f9975ca','sha256:cd058546d3ac16d2e5a1ed1e2a598aa9660640529331204312eb4fe810fc79c1','local_process','{"format":1,"mode":"shell","shell":"/bin/sh","script":"echo \"about to fail\"; exit 3","timeoutMs":30000}','sha256:0eeefa2b015d43ab0d02723015a08bf2594b751ded1dc73d10df674bdcb99ae1',1796325194241);
INSERT INTO execution_revisions VALUES('01a23d53-3a02-75a1-92bb-49a540cde000',1,'qltd:v1:1:sha256:eb08d3efaccbca6578da38b8dd34c483f1853d420dc506e9702ab261ac7feba4','01a23d53-3a02-717d-86b1-ce1f3f9975ca','sha256:eb08d3efaccbca6578da38b8dd34c483f1853d420dc506e9702ab261ac7feba4','local_process','{"format":1,"mode":"shell","shell":"/bin/sh","script":"echo started; sleep 300","timeoutMs":600000}','sha256:14291e8e2fef63c4a7372e24dbbce4ef4734a1d0eae4f39df866b03f756af1fb',1796325194241);
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
INSERT INTO triggers VALUES('01a23d53-3a02-7cc6-8219-476a0921c7d7','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-749b-ba34-c5b7b5136834','every-10s',1,1796325194241,1796325194241);
INSERT INTO triggers VALUES('01a23d53-3a02-7d19-b092-4872d2a51f5d','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-7574-bb9f-17bea38c6d5c','bad-every-20s',1,1796325194241,1796325194241);
INSERT INTO triggers VALUES('01a23d53-3a02-7d3a-baa6-cda383a8ba52','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-749b-ba34-c5b7b5136834','skip-every-15s',1,1796325194241,1796325194241);
INSERT INTO triggers VALUES('01a23d53-3a02-7dc1-8ad1-d9c4f4595644','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-749b-ba34-c5b7b5136834','paused-every-10s',1,1796325194241,1796325194241);
INSERT INTO triggers VALUES('01a23d53-3a02-7dec-9daf-eed86ffd1162','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-75a1-92bb-49a540cde000','slow-yearly',1,1796325194241,1796325194241);
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
INSERT INTO trigger_revisions VALUES('01a23d53-3a02-7cc6-8219-476a0921c7d7',1,'01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-749b-ba34-c5b7b5136834',1,'sha256:7f5895fbc20aacefc092f9c01de125ea2675c05172e2356089cbef880e057c6c','every-10s',1,'*/10 * * * * *','UTC','fire_once','sha256:a0ccdec2370d4e68c4dddba7c4ad1758bbc981bfa3486795d3249be3e36ef3e8','apply:trigger:0:sha256:a0ccdec2370d4e68c4dddba7c4ad1758bbc981bfa3486795d3249be3e36ef3e8',1796325194241,0,NULL,NULL,NULL,NULL);
INSERT INTO trigger_revisions VALUES('01a23d53-3a02-7d19-b092-4872d2a51f5d',1,'01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-7574-bb9f-17bea38c6d5c',1,'sha256:cd058546d3ac16d2e5a1ed1e2a598aa9660640529331204312eb4fe810fc79c1','bad-every-20s',1,'*/20 * * * * *','UTC','fire_once','sha256:c82364da059c2e6e113076bc0e71ee1e62b10ba53885c98f6ce7e7e40d83724e','apply:trigger:0:sha256:c82364da059c2e6e113076bc0e71ee1e62b10ba53885c98f6ce7e7e40d83724e',1796325194241,0,NULL,NULL,NULL,NULL);
INSERT INTO trigger_revisions VALUES('01a23d53-3a02-7d3a-baa6-cda383a8ba52',1,'01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-749b-ba34-c5b7b5136834',1,'sha256:7f5895fbc20aacefc092f9c01de125ea2675c05172e2356089cbef880e057c6c','skip-every-15s',1,'*/15 * * * * *','UTC','skip','sha256:01c91c5cba658e5223d8d90dd5a474fdf23e856befc97553bfe8e12f510aff77','apply:trigger:0:sha256:01c91c5cba658e5223d8d90dd5a474fdf23e856befc97553bfe8e12f510aff77',1796325194241,0,NULL,NULL,NULL,NULL);
INSERT INTO trigger_revisions VALUES('01a23d53-3a02-7dc1-8ad1-d9c4f4595644',1,'01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-749b-ba34-c5b7b5136834',1,'sha256:7f5895fbc20aacefc092f9c01de125ea2675c05172e2356089cbef880e057c6c','paused-every-10s',1,'*/10 * * * * *','UTC','fire_once','sha256:4abd26040d7534a30e8b0d442e4d95fa0ae3c3d8fad84544d0e92907def7fabf','apply:trigger:0:sha256:4abd26040d7534a30e8b0d442e4d95fa0ae3c3d8fad84544d0e92907def7fabf',1796325194241,0,NULL,NULL,NULL,NULL);
INSERT INTO trigger_revisions VALUES('01a23d53-3a02-7dec-9daf-eed86ffd1162',1,'01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-75a1-92bb-49a540cde000',1,'sha256:eb08d3efaccbca6578da38b8dd34c483f1853d420dc506e9702ab261ac7feba4','slow-yearly',1,'0 0 1 1 *','UTC','fire_once','sha256:b1da76615aeec6aa336541d5bad8eff81f0a0de932a7f7b08181af1e5d4e43ea','apply:trigger:0:sha256:b1da76615aeec6aa336541d5bad8eff81f0a0de932a7f7b08181af1e5d4e43ea',1796325194241,0,NULL,NULL,NULL,NULL);
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
INSERT INTO trigger_schedules VALUES('01a23d53-3a02-7cc6-8219-476a0921c7d7','01a23d53-3a02-717d-86b1-ce1f3f9975ca',1,1,1796325230000,1796325220000,5,1796325220004,0,NULL,NULL,NULL,0);
INSERT INTO trigger_schedules VALUES('01a23d53-3a02-7d19-b092-4872d2a51f5d','01a23d53-3a02-717d-86b1-ce1f3f9975ca',1,1,1796325240000,1796325220000,4,1796325220004,0,NULL,NULL,NULL,0);
INSERT INTO trigger_schedules VALUES('01a23d53-3a02-7d3a-baa6-cda383a8ba52','01a23d53-3a02-717d-86b1-ce1f3f9975ca',1,1,1796325225000,1796325210000,3,1796325210005,0,NULL,NULL,NULL,0);
INSERT INTO trigger_schedules VALUES('01a23d53-3a02-7dc1-8ad1-d9c4f4595644','01a23d53-3a02-717d-86b1-ce1f3f9975ca',1,1,1796325200000,NULL,3,1796325196930,1,'paused by the older build',1796325196930,NULL,0);
INSERT INTO trigger_schedules VALUES('01a23d53-3a02-7dec-9daf-eed86ffd1162','01a23d53-3a02-717d-86b1-ce1f3f9975ca',1,1,1798761600000,NULL,2,1796325195040,0,NULL,NULL,NULL,0);
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
INSERT INTO runs VALUES('01a23d53-3d1f-789f-8b21-f43d05c3388f','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-749b-ba34-c5b7b5136834',1,'01a23d53-3a02-7d3a-baa6-cda383a8ba52',1,'qltd:v1:1:sha256:7f5895fbc20aacefc092f9c01de125ea2675c05172e2356089cbef880e057c6c','ql3:cron:v1:01a23d53-3a02-7d3a-baa6-cda383a8ba52:1:1796325195000',1796325195000,'succeeded',5,5,1796325195040,1796325195040,1796325195077,1796325195077,1796325195000,0,NULL);
INSERT INTO runs VALUES('01a23d53-5082-7a13-a19e-8c1907ee04e5','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-749b-ba34-c5b7b5136834',1,'01a23d53-3a02-7cc6-8219-476a0921c7d7',1,'qltd:v1:1:sha256:7f5895fbc20aacefc092f9c01de125ea2675c05172e2356089cbef880e057c6c','ql3:cron:v1:01a23d53-3a02-7cc6-8219-476a0921c7d7:1:1796325200000',1796325200000,'succeeded',5,5,1796325200003,1796325200003,1796325200014,1796325200014,1796325200000,0,NULL);
INSERT INTO runs VALUES('01a23d53-5082-7a1f-b135-1985fe05a4f4','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-7574-bb9f-17bea38c6d5c',1,'01a23d53-3a02-7d19-b092-4872d2a51f5d',1,'qltd:v1:1:sha256:cd058546d3ac16d2e5a1ed1e2a598aa9660640529331204312eb4fe810fc79c1','ql3:cron:v1:01a23d53-3a02-7d19-b092-4872d2a51f5d:1:1796325200000',1796325200000,'failed',5,5,1796325200003,1796325200003,1796325200026,1796325200026,1796325200000,0,NULL);
INSERT INTO runs VALUES('01a23d53-7794-7aca-8878-583298e29524','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-749b-ba34-c5b7b5136834',1,'01a23d53-3a02-7cc6-8219-476a0921c7d7',1,'qltd:v1:1:sha256:7f5895fbc20aacefc092f9c01de125ea2675c05172e2356089cbef880e057c6c','ql3:cron:v1:01a23d53-3a02-7cc6-8219-476a0921c7d7:1:1796325210000',1796325210000,'succeeded',5,5,1796325210005,1796325210005,1796325210017,1796325210017,1796325210000,0,NULL);
INSERT INTO runs VALUES('01a23d53-7794-7ad6-bd76-e9792e8744fe','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-749b-ba34-c5b7b5136834',1,'01a23d53-3a02-7d3a-baa6-cda383a8ba52',1,'qltd:v1:1:sha256:7f5895fbc20aacefc092f9c01de125ea2675c05172e2356089cbef880e057c6c','ql3:cron:v1:01a23d53-3a02-7d3a-baa6-cda383a8ba52:1:1796325210000',1796325210000,'succeeded',5,5,1796325210005,1796325210005,1796325210026,1796325210026,1796325210000,0,NULL);
INSERT INTO runs VALUES('01a23d53-9ea3-74b3-bd9f-b0d8dfa33742','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-749b-ba34-c5b7b5136834',1,'01a23d53-3a02-7cc6-8219-476a0921c7d7',1,'qltd:v1:1:sha256:7f5895fbc20aacefc092f9c01de125ea2675c05172e2356089cbef880e057c6c','ql3:cron:v1:01a23d53-3a02-7cc6-8219-476a0921c7d7:1:1796325220000',1796325220000,'succeeded',5,5,1796325220004,1796325220004,1796325220023,1796325220023,1796325220000,0,NULL);
INSERT INTO runs VALUES('01a23d53-9ea3-74c4-9072-e88628201342','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-7574-bb9f-17bea38c6d5c',1,'01a23d53-3a02-7d19-b092-4872d2a51f5d',1,'qltd:v1:1:sha256:cd058546d3ac16d2e5a1ed1e2a598aa9660640529331204312eb4fe810fc79c1','ql3:cron:v1:01a23d53-3a02-7d19-b092-4872d2a51f5d:1:1796325220000',1796325220000,'failed',5,5,1796325220004,1796325220004,1796325220023,1796325220023,1796325220000,0,NULL);
INSERT INTO runs VALUES('01a23d53-a2c4-7700-86b8-d821ffadbf27','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-3a02-75a1-92bb-49a540cde000',1,'01a23d53-3a02-7dec-9daf-eed86ffd1162',1,'qltd:v1:1:sha256:eb08d3efaccbca6578da38b8dd34c483f1853d420dc506e9702ab261ac7feba4','ql3:manual:v1:01a23d53-3a02-7dec-9daf-eed86ffd1162:fixture-slow',1796325221060,'lost',5,5,1796325221060,1796325221060,1796325228117,1796325228117,1796325221060,0,NULL);
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
  log_truncated  INTEGER NOT NULL DEFAULT 0 CHECK (log_truncated IN (0, 1)), error_message TEXT NOT NULL DEFAULT '',
  UNIQUE (run_id, number),
  CHECK (state <> 'claimed' OR owner IS NULL),
  CHECK (state NOT IN ('starting', 'running') OR owner IS NOT NULL)
) STRICT;
INSERT INTO attempts VALUES('01a23d53-3d1f-78a1-9076-a356a0397641','01a23d53-3d1f-789f-8b21-f43d05c3388f',1,'local_process','succeeded','01a23d53-3d1e-701e-bdea-4bdf009b7c13',17994,0,'',1796325195040,1796325195067,1796325195077,'/var/lib/qinglong/qinglong-logs/01a23d53-3d1f-78a1-9076-a356a0397641.log',40,0,'');
INSERT INTO attempts VALUES('01a23d53-5082-7a17-a7f6-e65b0d8f8fc0','01a23d53-5082-7a13-a19e-8c1907ee04e5',1,'local_process','succeeded','01a23d53-3d1e-701e-bdea-4bdf009b7c13',18228,0,'',1796325200003,1796325200003,1796325200014,'/var/lib/qinglong/qinglong-logs/01a23d53-5082-7a17-a7f6-e65b0d8f8fc0.log',40,0,'');
INSERT INTO attempts VALUES('01a23d53-5082-7a20-a84f-1069041e8acf','01a23d53-5082-7a1f-b135-1985fe05a4f4',1,'local_process','failed','01a23d53-3d1e-701e-bdea-4bdf009b7c13',18231,3,'exit_nonzero',1796325200003,1796325200006,1796325200026,'/var/lib/qinglong/qinglong-logs/01a23d53-5082-7a20-a84f-1069041e8acf.log',14,0,'');
INSERT INTO attempts VALUES('01a23d53-7794-7ace-a01e-50881757cc3f','01a23d53-7794-7aca-8878-583298e29524',1,'local_process','succeeded','01a23d53-3d1e-701e-bdea-4bdf009b7c13',18485,0,'',1796325210005,1796325210006,1796325210017,'/var/lib/qinglong/qinglong-logs/01a23d53-7794-7ace-a01e-50881757cc3f.log',40,0,'');
INSERT INTO attempts VALUES('01a23d53-7794-7ad7-8b0d-16835695d01a','01a23d53-7794-7ad6-bd76-e9792e8744fe',1,'local_process','succeeded','01a23d53-3d1e-701e-bdea-4bdf009b7c13',18486,0,'',1796325210005,1796325210009,1796325210026,'/var/lib/qinglong/qinglong-logs/01a23d53-7794-7ad7-8b0d-16835695d01a.log',40,0,'');
INSERT INTO attempts VALUES('01a23d53-9ea3-74b7-8ea9-fb3b62f5de6d','01a23d53-9ea3-74b3-bd9f-b0d8dfa33742',1,'local_process','succeeded','01a23d53-3d1e-701e-bdea-4bdf009b7c13',18899,0,'',1796325220004,1796325220005,1796325220023,'/var/lib/qinglong/qinglong-logs/01a23d53-9ea3-74b7-8ea9-fb3b62f5de6d.log',40,0,'');
INSERT INTO attempts VALUES('01a23d53-9ea3-74c5-927f-a49996c9a266','01a23d53-9ea3-74c4-9072-e88628201342',1,'local_process','failed','01a23d53-3d1e-701e-bdea-4bdf009b7c13',18900,3,'exit_nonzero',1796325220004,1796325220016,1796325220023,'/var/lib/qinglong/qinglong-logs/01a23d53-9ea3-74c5-927f-a49996c9a266.log',14,0,'');
INSERT INTO attempts VALUES('01a23d53-a2c4-7702-8dac-a65183b0e5fa','01a23d53-a2c4-7700-86b8-d821ffadbf27',1,'local_process','lost','01a23d53-3d1e-701e-bdea-4bdf009b7c13',18941,NULL,'server_stopped',1796325221060,1796325221225,1796325228117,'/var/lib/qinglong/qinglong-logs/01a23d53-a2c4-7702-8dac-a65183b0e5fa.log',116,0,'');
CREATE TABLE run_events (
  run_id        TEXT NOT NULL REFERENCES runs (id),
  seq           INTEGER NOT NULL CHECK (seq >= 1),
  name          TEXT NOT NULL,
  payload       TEXT NOT NULL CHECK (json_valid(payload) AND json_type(payload) = 'object'),
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
) STRICT;
INSERT INTO run_events VALUES('01a23d53-3d1f-789f-8b21-f43d05c3388f',1,'run.created','{"idempotencyKey":"ql3:cron:v1:01a23d53-3a02-7d3a-baa6-cda383a8ba52:1:1796325195000","scheduledForMs":1796325195000,"triggerId":"01a23d53-3a02-7d3a-baa6-cda383a8ba52","triggerRevision":1}',1796325195040);
INSERT INTO run_events VALUES('01a23d53-3d1f-789f-8b21-f43d05c3388f',2,'run.queued','{"attemptId":"01a23d53-3d1f-78a1-9076-a356a0397641","executor":"local_process"}',1796325195040);
INSERT INTO run_events VALUES('01a23d53-3d1f-789f-8b21-f43d05c3388f',3,'run.running','{"attemptId":"01a23d53-3d1f-78a1-9076-a356a0397641"}',1796325195067);
INSERT INTO run_events VALUES('01a23d53-3d1f-789f-8b21-f43d05c3388f',4,'attempt.started','{"attemptId":"01a23d53-3d1f-78a1-9076-a356a0397641","pid":17994}',1796325195075);
INSERT INTO run_events VALUES('01a23d53-3d1f-789f-8b21-f43d05c3388f',5,'run.succeeded','{"attemptId":"01a23d53-3d1f-78a1-9076-a356a0397641","exitCode":0}',1796325195077);
INSERT INTO run_events VALUES('01a23d53-5082-7a13-a19e-8c1907ee04e5',1,'run.created','{"idempotencyKey":"ql3:cron:v1:01a23d53-3a02-7cc6-8219-476a0921c7d7:1:1796325200000","scheduledForMs":1796325200000,"triggerId":"01a23d53-3a02-7cc6-8219-476a0921c7d7","triggerRevision":1}',1796325200003);
INSERT INTO run_events VALUES('01a23d53-5082-7a1f-b135-1985fe05a4f4',1,'run.created','{"idempotencyKey":"ql3:cron:v1:01a23d53-3a02-7d19-b092-4872d2a51f5d:1:1796325200000","scheduledForMs":1796325200000,"triggerId":"01a23d53-3a02-7d19-b092-4872d2a51f5d","triggerRevision":1}',1796325200003);
INSERT INTO run_events VALUES('01a23d53-5082-7a13-a19e-8c1907ee04e5',2,'run.queued','{"attemptId":"01a23d53-5082-7a17-a7f6-e65b0d8f8fc0","executor":"local_process"}',1796325200003);
INSERT INTO run_events VALUES('01a23d53-5082-7a1f-b135-1985fe05a4f4',2,'run.queued','{"attemptId":"01a23d53-5082-7a20-a84f-1069041e8acf","executor":"local_process"}',1796325200003);
INSERT INTO run_events VALUES('01a23d53-5082-7a13-a19e-8c1907ee04e5',3,'run.running','{"attemptId":"01a23d53-5082-7a17-a7f6-e65b0d8f8fc0"}',1796325200003);
INSERT INTO run_events VALUES('01a23d53-5082-7a1f-b135-1985fe05a4f4',3,'run.running','{"attemptId":"01a23d53-5082-7a20-a84f-1069041e8acf"}',1796325200006);
INSERT INTO run_events VALUES('01a23d53-5082-7a13-a19e-8c1907ee04e5',4,'attempt.started','{"attemptId":"01a23d53-5082-7a17-a7f6-e65b0d8f8fc0","pid":18228}',1796325200013);
INSERT INTO run_events VALUES('01a23d53-5082-7a13-a19e-8c1907ee04e5',5,'run.succeeded','{"attemptId":"01a23d53-5082-7a17-a7f6-e65b0d8f8fc0","exitCode":0}',1796325200014);
INSERT INTO run_events VALUES('01a23d53-5082-7a1f-b135-1985fe05a4f4',4,'attempt.started','{"attemptId":"01a23d53-5082-7a20-a84f-1069041e8acf","pid":18231}',1796325200020);
INSERT INTO run_events VALUES('01a23d53-5082-7a1f-b135-1985fe05a4f4',5,'run.failed','{"attemptId":"01a23d53-5082-7a20-a84f-1069041e8acf","errorCode":"exit_nonzero","exitCode":3}',1796325200026);
INSERT INTO run_events VALUES('01a23d53-7794-7aca-8878-583298e29524',1,'run.created','{"idempotencyKey":"ql3:cron:v1:01a23d53-3a02-7cc6-8219-476a0921c7d7:1:1796325210000","scheduledForMs":1796325210000,"triggerId":"01a23d53-3a02-7cc6-8219-476a0921c7d7","triggerRevision":1}',1796325210005);
INSERT INTO run_events VALUES('01a23d53-7794-7ad6-bd76-e9792e8744fe',1,'run.created','{"idempotencyKey":"ql3:cron:v1:01a23d53-3a02-7d3a-baa6-cda383a8ba52:1:1796325210000","scheduledForMs":1796325210000,"triggerId":"01a23d53-3a02-7d3a-baa6-cda383a8ba52","triggerRevision":1}',1796325210005);
INSERT INTO run_events VALUES('01a23d53-7794-7aca-8878-583298e29524',2,'run.queued','{"attemptId":"01a23d53-7794-7ace-a01e-50881757cc3f","executor":"local_process"}',1796325210005);
INSERT INTO run_events VALUES('01a23d53-7794-7ad6-bd76-e9792e8744fe',2,'run.queued','{"attemptId":"01a23d53-7794-7ad7-8b0d-16835695d01a","executor":"local_process"}',1796325210005);
INSERT INTO run_events VALUES('01a23d53-7794-7aca-8878-583298e29524',3,'run.running','{"attemptId":"01a23d53-7794-7ace-a01e-50881757cc3f"}',1796325210006);
INSERT INTO run_events VALUES('01a23d53-7794-7ad6-bd76-e9792e8744fe',3,'run.running','{"attemptId":"01a23d53-7794-7ad7-8b0d-16835695d01a"}',1796325210009);
INSERT INTO run_events VALUES('01a23d53-7794-7aca-8878-583298e29524',4,'attempt.started','{"attemptId":"01a23d53-7794-7ace-a01e-50881757cc3f","pid":18485}',1796325210015);
INSERT INTO run_events VALUES('01a23d53-7794-7aca-8878-583298e29524',5,'run.succeeded','{"attemptId":"01a23d53-7794-7ace-a01e-50881757cc3f","exitCode":0}',1796325210017);
INSERT INTO run_events VALUES('01a23d53-7794-7ad6-bd76-e9792e8744fe',4,'attempt.started','{"attemptId":"01a23d53-7794-7ad7-8b0d-16835695d01a","pid":18486}',1796325210025);
INSERT INTO run_events VALUES('01a23d53-7794-7ad6-bd76-e9792e8744fe',5,'run.succeeded','{"attemptId":"01a23d53-7794-7ad7-8b0d-16835695d01a","exitCode":0}',1796325210026);
INSERT INTO run_events VALUES('01a23d53-9ea3-74b3-bd9f-b0d8dfa33742',1,'run.created','{"idempotencyKey":"ql3:cron:v1:01a23d53-3a02-7cc6-8219-476a0921c7d7:1:1796325220000","scheduledForMs":1796325220000,"triggerId":"01a23d53-3a02-7cc6-8219-476a0921c7d7","triggerRevision":1}',1796325220004);
INSERT INTO run_events VALUES('01a23d53-9ea3-74c4-9072-e88628201342',1,'run.created','{"idempotencyKey":"ql3:cron:v1:01a23d53-3a02-7d19-b092-4872d2a51f5d:1:1796325220000","scheduledForMs":1796325220000,"triggerId":"01a23d53-3a02-7d19-b092-4872d2a51f5d","triggerRevision":1}',1796325220004);
INSERT INTO run_events VALUES('01a23d53-9ea3-74b3-bd9f-b0d8dfa33742',2,'run.queued','{"attemptId":"01a23d53-9ea3-74b7-8ea9-fb3b62f5de6d","executor":"local_process"}',1796325220004);
INSERT INTO run_events VALUES('01a23d53-9ea3-74c4-9072-e88628201342',2,'run.queued','{"attemptId":"01a23d53-9ea3-74c5-927f-a49996c9a266","executor":"local_process"}',1796325220004);
INSERT INTO run_events VALUES('01a23d53-9ea3-74b3-bd9f-b0d8dfa33742',3,'run.running','{"attemptId":"01a23d53-9ea3-74b7-8ea9-fb3b62f5de6d"}',1796325220005);
INSERT INTO run_events VALUES('01a23d53-9ea3-74c4-9072-e88628201342',3,'run.running','{"attemptId":"01a23d53-9ea3-74c5-927f-a49996c9a266"}',1796325220016);
INSERT INTO run_events VALUES('01a23d53-9ea3-74b3-bd9f-b0d8dfa33742',4,'attempt.started','{"attemptId":"01a23d53-9ea3-74b7-8ea9-fb3b62f5de6d","pid":18899}',1796325220021);
INSERT INTO run_events VALUES('01a23d53-9ea3-74c4-9072-e88628201342',4,'attempt.started','{"attemptId":"01a23d53-9ea3-74c5-927f-a49996c9a266","pid":18900}',1796325220021);
INSERT INTO run_events VALUES('01a23d53-9ea3-74b3-bd9f-b0d8dfa33742',5,'run.succeeded','{"attemptId":"01a23d53-9ea3-74b7-8ea9-fb3b62f5de6d","exitCode":0}',1796325220023);
INSERT INTO run_events VALUES('01a23d53-9ea3-74c4-9072-e88628201342',5,'run.failed','{"attemptId":"01a23d53-9ea3-74c5-927f-a49996c9a266","errorCode":"exit_nonzero","exitCode":3}',1796325220023);
INSERT INTO run_events VALUES('01a23d53-a2c4-7700-86b8-d821ffadbf27',1,'run.created','{"actor":"root","force":false,"idempotencyKey":"ql3:manual:v1:01a23d53-3a02-7dec-9daf-eed86ffd1162:fixture-slow","manual":"run_now","requestId":"fixture-slow","scheduledForMs":1796325221060,"triggerId":"01a23d53-3a02-7dec-9daf-eed86ffd1162","triggerRevision":1}',1796325221060);
INSERT INTO run_events VALUES('01a23d53-a2c4-7700-86b8-d821ffadbf27',2,'run.queued','{"attemptId":"01a23d53-a2c4-7702-8dac-a65183b0e5fa","executor":"local_process"}',1796325221060);
INSERT INTO run_events VALUES('01a23d53-a2c4-7700-86b8-d821ffadbf27',3,'run.running','{"attemptId":"01a23d53-a2c4-7702-8dac-a65183b0e5fa"}',1796325221225);
INSERT INTO run_events VALUES('01a23d53-a2c4-7700-86b8-d821ffadbf27',4,'attempt.started','{"attemptId":"01a23d53-a2c4-7702-8dac-a65183b0e5fa","pid":18941}',1796325221231);
INSERT INTO run_events VALUES('01a23d53-a2c4-7700-86b8-d821ffadbf27',5,'run.lost','{"attemptId":"01a23d53-a2c4-7702-8dac-a65183b0e5fa","errorCode":"server_stopped"}',1796325228117);
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
INSERT INTO api_tokens VALUES('01a23d53-3c09-7c66-8e0f-b30d70bd0ae5','ci','admin',X'41e270a9238429e73671fc5e84b6d6583a718e211e1f474f58ec094583e49958',1796325194761,NULL,NULL,NULL);
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
INSERT INTO notification_outbox VALUES('01a23d53-509a-7c68-a580-f4f43ffa7fb8','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-5082-7a1f-b135-1985fe05a4f4','sha256:92835843a6b101fc243ba669051c52aebb88abda29493897121921b79c94a160','01a23d53-5082-7a1f-b135-1985fe05a4f4','failed','{"name":"hook","kind":"webhook","url":"http://127.0.0.1:1/unreachable"}','{"id":"01a23d53-509a-7c68-a580-f4f43ffa7fb8","event":"failed","project":"legacy","trigger":"bad-every-20s","runId":"01a23d53-5082-7a1f-b135-1985fe05a4f4","runState":"failed","errorCode":"exit_nonzero","scheduledFor":"2026-12-03T19:13:20.000Z","finishedAt":"2026-12-03T19:13:20.026Z"}','dead',2,1796325202907,'channel hook: request failed: dial tcp 127.0.0.1:1: connect: connection refused',1796325200026,1796325201050,NULL);
INSERT INTO notification_outbox VALUES('01a23d53-9eb9-7dc4-a693-32c793ca94bb','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-9ea3-74c4-9072-e88628201342','sha256:92835843a6b101fc243ba669051c52aebb88abda29493897121921b79c94a160','01a23d53-9ea3-74c4-9072-e88628201342','failed','{"name":"hook","kind":"webhook","url":"http://127.0.0.1:1/unreachable"}','{"id":"01a23d53-9eb9-7dc4-a693-32c793ca94bb","event":"failed","project":"legacy","trigger":"bad-every-20s","runId":"01a23d53-9ea3-74c4-9072-e88628201342","runState":"failed","errorCode":"exit_nonzero","scheduledFor":"2026-12-03T19:13:40.000Z","finishedAt":"2026-12-03T19:13:40.023Z"}','dead',2,1796325222845,'channel hook: request failed: dial tcp 127.0.0.1:1: connect: connection refused',1796325220023,1796325221098,NULL);
INSERT INTO notification_outbox VALUES('01a23d53-be55-7c62-a8c3-4aafe5329ceb','01a23d53-3a02-717d-86b1-ce1f3f9975ca','01a23d53-a2c4-7700-86b8-d821ffadbf27','sha256:a72987dcd93bc01f70bf14ca509c9a66368318701dba5e60a6e38e46c817bb7e','01a23d53-a2c4-7700-86b8-d821ffadbf27','lost','{"name":"hook","kind":"webhook","url":"http://127.0.0.1:1/unreachable"}','{"id":"01a23d53-be55-7c62-a8c3-4aafe5329ceb","event":"lost","project":"legacy","trigger":"slow-yearly","runId":"01a23d53-a2c4-7700-86b8-d821ffadbf27","runState":"lost","errorCode":"server_stopped","scheduledFor":"2026-12-03T19:13:41.060Z","finishedAt":"2026-12-03T19:13:48.117Z"}','pending',0,1796325228117,NULL,1796325228117,1796325228117,NULL);
CREATE TABLE IF NOT EXISTS "trigger_schedule_audit" (
  id         INTEGER PRIMARY KEY,
  trigger_id TEXT NOT NULL REFERENCES triggers (id),
  action     TEXT NOT NULL CHECK (action IN ('pause', 'resume', 'enable', 'disable')),
  actor      TEXT NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
  note       TEXT CHECK (length(note) <= 1000),
  at_ms      INTEGER NOT NULL
) STRICT;
INSERT INTO trigger_schedule_audit VALUES(1,'01a23d53-3a02-7dc1-8ad1-d9c4f4595644','pause','root','paused by the older build',1796325196930);
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
INSERT INTO console_users VALUES('01a23d53-3aea-7b82-8ee9-6c343792210d','alice','owner','$argon2id$v=19$m=19456,t=2,p=1$gAR6bTxgxBWeviU0+b57vg$1a7nTxY+1PpyJAf8BoimfZ1if7tuQlaJxnK+qIb8jKE',1796325194603,NULL,NULL);
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
