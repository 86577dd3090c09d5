-- A console user may be bound to projects: its console shows and acts on
-- those only. projects holds their names, sorted and joined by ',' (a
-- name never holds one); '' is a user of every project, as every user made
-- before this was. An owner manages every project's tokens, users and
-- secrets, and is never bound.
ALTER TABLE console_users ADD COLUMN projects TEXT NOT NULL DEFAULT ''
    CHECK (projects NOT LIKE '%,,%' AND (projects = '' OR role <> 'owner'));
