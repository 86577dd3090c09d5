-- Marks the database handed over at ?1 by ?2 from the data directory ?3;
-- a mark already there is kept, so the refusal names the first handover.
INSERT INTO handover (id, at_ms, actor, data_dir) VALUES (1, ?1, ?2, ?3) ON CONFLICT (id) DO NOTHING
