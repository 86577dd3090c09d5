-- Deletes an ended second step found by a read.
DELETE FROM console_two_step_pending WHERE digest = ?1
