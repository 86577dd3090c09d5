-- pg-0045: a token may be bound to projects: it acts on those only.
-- projects holds their names, sorted without repeats; an empty array is a
-- token of every project, as every token made before this was.
ALTER TABLE qinglong.api_tokens ADD COLUMN projects text[] NOT NULL DEFAULT '{}'
    CHECK (array_position(projects, NULL) IS NULL);
