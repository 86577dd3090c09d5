-- A project can be paused as a whole (`ql projects pause`): one row per
-- project ever paused, its pause in force while paused = 1 (note, actor
-- and at_ms the pause's), its last resume's actor and time once resumed.
-- Each trigger the project's pause paused keeps the ordinary trigger
-- pause (paused = 1, never taken) with paused_with_project = 1, so the
-- take's statements stay as they are and a resume of the project resumes
-- those rows alone: a trigger paused on its own keeps 0 and stays paused.
CREATE TABLE project_pauses (
  project_id TEXT PRIMARY KEY REFERENCES projects (id),
  paused     INTEGER NOT NULL CHECK (paused IN (0, 1)),
  note       TEXT CHECK (length(note) <= 1000),
  actor      TEXT NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
  at_ms      INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

ALTER TABLE trigger_schedules ADD COLUMN paused_with_project INTEGER NOT NULL DEFAULT 0 CHECK (paused_with_project IN (0, 1));
