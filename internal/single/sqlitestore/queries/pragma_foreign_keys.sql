-- Referential integrity is enforced only when foreign keys are on.
PRAGMA foreign_keys
