-- A token may be bound to projects: it acts on those only. projects holds
-- their names, sorted and joined by ',' (a name never holds one); '' is a
-- token of every project, as every token made before this was.
ALTER TABLE api_tokens ADD COLUMN projects TEXT NOT NULL DEFAULT '' CHECK (projects NOT LIKE '%,,%');
