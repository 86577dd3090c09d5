-- Stores a secret waiting for its first code, in place of one waiting
-- already, never over a secret that is on: no row changes when it is on.
INSERT INTO console_two_step (user_id, secret) VALUES (?1, ?2)
    ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret WHERE enabled_at_ms IS NULL
