-- Marks the database handed over at ?1 by ?2; a mark already there is
-- kept, so the refusal names the first handover.
INSERT INTO handover (id, at_ms, actor) VALUES (1, ?1, ?2) ON CONFLICT (id) DO NOTHING
