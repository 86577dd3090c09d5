-- The audit listing (AuditList, sql/audit.sql) reads the trigger
-- schedule's records newest first beside audit_log's (audit_log_at_idx),
-- a page's worth from where the page starts, rather than sorting the
-- whole table for each page; the id breaks a millisecond's ties in the
-- listing's order.
CREATE INDEX trigger_schedule_audit_at_idx ON qinglong.trigger_schedule_audit (at_ms, id);
