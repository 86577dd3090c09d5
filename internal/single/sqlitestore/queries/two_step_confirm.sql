-- Turns the waiting secret on only while it is still the one whose code
-- was checked (?2), the code's time step (?4) used with it: no row changes
-- when another secret waits, none does, or it is on already.
UPDATE console_two_step SET enabled_at_ms = ?3, last_step = max(last_step, ?4)
 WHERE user_id = ?1 AND secret = ?2 AND enabled_at_ms IS NULL
