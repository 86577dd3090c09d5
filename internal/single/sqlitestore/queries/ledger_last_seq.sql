-- The last ledger entry number of a trigger (0 for none), read under the
-- write lock that also holds the schedule row's fence, so the entries a
-- decision appends are numbered on from it without a gap or a clash. One
-- descent of the primary key.
SELECT coalesce(max(seq), 0) FROM occurrence_ledger WHERE trigger_id = ?
