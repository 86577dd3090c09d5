-- Records a project's pause (?2 = 1, with its note) or resume (?2 = 0, no
-- note), who asked and when: the row holds the newest of them.
INSERT INTO project_pauses (project_id, paused, note, actor, at_ms) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (project_id) DO UPDATE SET
  paused = excluded.paused, note = excluded.note, actor = excluded.actor, at_ms = excluded.at_ms
