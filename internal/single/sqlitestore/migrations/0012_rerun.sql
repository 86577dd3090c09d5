-- Re-runs: a Run a person asked to repeat names the finished Run it
-- repeats. No foreign key: retention deletes the original when it ages
-- out, and the re-run keeps the id it was made from.
ALTER TABLE runs ADD COLUMN rerun_of TEXT;
