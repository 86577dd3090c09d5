-- The audit listing (audit_list.sql) reads the trigger schedule's records
-- newest first beside audit_log's (audit_log_at), a page's worth from
-- where the page starts, rather than sorting the whole table for each
-- page. The key's last column is the rowid, the record's id, which breaks
-- a millisecond's ties in the listing's order.
CREATE INDEX trigger_schedule_audit_at ON trigger_schedule_audit (at_ms);
