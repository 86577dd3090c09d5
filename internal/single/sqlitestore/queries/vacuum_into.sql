-- A vacuum's compacted copy of the whole database, written to an empty
-- file beside it that then replaces it (see VacuumInto): every table and
-- index rebuilt page by page, with no free or half-empty page left.
VACUUM INTO ?
