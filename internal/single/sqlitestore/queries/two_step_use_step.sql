-- The replay fence: records that a code of time step ?2 was accepted only
-- while two-step is on and no code of that step or a later one was; no
-- row changes for a code used already.
UPDATE console_two_step SET last_step = ?2
 WHERE user_id = ?1 AND enabled_at_ms IS NOT NULL AND last_step < ?2
