-- Takes a handed-over database back: its server may start again.
DELETE FROM handover WHERE id = 1
