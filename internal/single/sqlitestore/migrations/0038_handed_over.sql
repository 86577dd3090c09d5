-- A database handed over to another one (`ql export --with-state`): its
-- schedule positions and pauses were exported for the target to adopt,
-- which runs the same triggers from then on, so a server starting on this
-- file would run their occurrences a second time. At most one row, the
-- first handover's (exporting again changes nothing: no server ran
-- since); `ql serve --take-back` deletes it.
CREATE TABLE handover (
  id     INTEGER PRIMARY KEY CHECK (id = 1),
  at_ms  INTEGER NOT NULL,
  actor  TEXT NOT NULL
) STRICT;
