-- pg-0046: a console user may be bound to projects: its console shows and
-- acts on those only. projects holds their names, sorted without repeats;
-- an empty array is a user of every project, as every user made before
-- this was. An owner manages every project's tokens, users and secrets,
-- and is never bound.
ALTER TABLE qinglong.console_users ADD COLUMN projects text[] NOT NULL DEFAULT '{}'
        CHECK (array_position(projects, NULL) IS NULL),
    ADD CONSTRAINT console_users_owner_unbound CHECK (projects = '{}' OR role <> 'owner');
