-- Records a session's use at ?2, only when the last one written is at
-- least ?3 ms older: browsing writes at most once per that interval.
UPDATE console_sessions SET last_seen_at_ms = ?2 WHERE digest = ?1 AND last_seen_at_ms <= ?2 - ?3
