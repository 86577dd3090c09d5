-- Appends one record of the audit trail, in the transaction of the change
-- it records (audit.go): the change and its record commit together or not
-- at all. The table's triggers refuse any UPDATE or DELETE of it.
INSERT INTO audit_log (id, at_ms, actor, action, object_kind, object_id, object_name, project, note)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
