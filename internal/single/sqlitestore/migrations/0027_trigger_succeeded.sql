-- Per-trigger monitoring reads when each trigger's latest succeeded Run
-- finished: the last entry of this index under the trigger, one probe
-- however many Runs the trigger has and however long ago it last
-- succeeded.
CREATE INDEX runs_trigger_succeeded ON runs (trigger_id, finished_at_ms) WHERE state = 'succeeded' AND finished_at_ms IS NOT NULL;
