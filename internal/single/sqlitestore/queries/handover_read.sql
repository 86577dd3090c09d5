-- The database's handover mark, if any.
SELECT at_ms, actor FROM handover WHERE id = 1
