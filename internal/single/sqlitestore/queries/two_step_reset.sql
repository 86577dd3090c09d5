-- An operator's reset: forgets the user's secret, on or waiting, with its
-- recovery codes; returns whether it was on, which alone is recorded.
DELETE FROM console_two_step WHERE user_id = ?1 RETURNING enabled_at_ms IS NOT NULL
