-- A trigger paused on its own while its project's pause holds it: the
-- pause becomes the trigger's own, with its note, so the project's resume
-- leaves it paused. The pause span is the one in force: nothing fell due
-- unpaused, so the ledger's account of it is unchanged.
UPDATE trigger_schedules SET paused_with_project = 0, pause_note = ?2
WHERE trigger_id = ?1 AND paused = 1 AND paused_with_project = 1
