-- The database's handover mark, if any; data_dir is '' for a mark
-- recorded before the exporting directory was.
SELECT at_ms, actor, coalesce(data_dir, '') FROM handover WHERE id = 1
