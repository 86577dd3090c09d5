-- The log files of a deleted project's attempts still to be removed. The
-- deletion writes them in its transaction, as its attempts go, and removes
-- each row once its file is gone: a file that could not be removed, or a
-- process stopped between the commit and the removal, stays named here,
-- and deleting the project's name again removes what is left.
CREATE TABLE deleted_project_logs (
  attempt_id TEXT NOT NULL PRIMARY KEY,
  project    TEXT NOT NULL CHECK (length(project) BETWEEN 1 AND 128)
) STRICT;
CREATE INDEX deleted_project_logs_project ON deleted_project_logs (project);
