-- A project can be paused as a whole (`ql projects pause`): one row per
-- project ever paused, its pause in force while paused (note, actor and
-- at_ms the pause's), its last resume's actor and time once resumed.
-- Each trigger the project's pause paused keeps the ordinary trigger
-- pause (paused, not schedulable, never claimed) with paused_with_project
-- set, so the claim and commit statements stay as they are and the
-- project's resume resumes those rows alone: a trigger paused on its own
-- keeps false and stays paused.
CREATE TABLE qinglong.project_pauses (
    project_id uuid    NOT NULL PRIMARY KEY REFERENCES qinglong.projects (id),
    paused     boolean NOT NULL,
    note       text    CHECK (length(note) <= 1000),
    actor      text    NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
    at_ms      bigint  NOT NULL CHECK (at_ms >= 0)
);

ALTER TABLE qinglong.trigger_schedules
    ADD COLUMN paused_with_project boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT trigger_schedules_paused_with_project CHECK (paused OR NOT paused_with_project);
