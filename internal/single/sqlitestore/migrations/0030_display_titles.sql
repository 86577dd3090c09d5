-- A project, task or trigger may carry a display title beside its name,
-- in any language ('' none): the name stays the identifier the CLI, API,
-- addresses and metrics use. A title is the object's, not its revisions':
-- it lives on the head row, is in no content digest, and changing it
-- publishes no revision, so it never resets a schedule or writes to the
-- occurrence ledger. length() counts characters, as validate.Title does.
ALTER TABLE projects ADD COLUMN title TEXT NOT NULL DEFAULT '' CHECK (length(title) <= 80);
ALTER TABLE tasks ADD COLUMN title TEXT NOT NULL DEFAULT '' CHECK (length(title) <= 80);
ALTER TABLE triggers ADD COLUMN title TEXT NOT NULL DEFAULT '' CHECK (length(title) <= 80);
