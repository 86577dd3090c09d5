-- pg-0022: a queued Run that no live worker could take, because none
-- carries its task's placement labels (or none takes work at all), gets
-- one run.waiting event saying so (sql/workers_sweep.sql, SweepNoteWaiting),
-- once per Run: waiting_noted_at_ms records when, and the partial index
-- holds only the queued Runs not noted yet, so the sweep's rounds never
-- walk the Runs they have already noted, however long those wait.
ALTER TABLE qinglong.runs ADD COLUMN waiting_noted_at_ms bigint CHECK (waiting_noted_at_ms >= 0);
CREATE INDEX runs_queued_unnoted_idx ON qinglong.runs (task_id, task_revision, id)
    WHERE state = 'queued' AND waiting_noted_at_ms IS NULL;
