-- Retention: the attempts still writing their log (started, not ended).
-- Their log_bytes is written only when they end, so the cap counts their
-- files' current sizes instead; their logs are never deleted. The
-- attempts_logs index holds them first (a NULL finish sorts first).
SELECT id FROM attempts WHERE log_path <> '' AND finished_at_ms IS NULL
