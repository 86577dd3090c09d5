-- pg-0030: per-trigger monitoring (sql/monitor.sql, MonitorTriggerActivity)
-- reads when each trigger's latest succeeded Run finished as the first
-- entry of this index under the trigger: one probe however many Runs the
-- trigger has and however long ago it last succeeded.
CREATE INDEX runs_trigger_succeeded_idx ON qinglong.runs (trigger_id, finished_at_ms DESC) WHERE state = 'succeeded' AND finished_at_ms IS NOT NULL;
