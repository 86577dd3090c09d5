-- Gives back at most 256 free pages (a pragma takes no parameter); it
-- yields one row per page, so the caller reads every row.
PRAGMA incremental_vacuum(256)
