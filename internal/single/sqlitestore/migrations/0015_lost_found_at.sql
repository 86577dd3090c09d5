-- A Run found lost records when in finished_at_ms, as a finished Run does
-- and as the cluster's lost Runs always did: retention ages a lost Run
-- from then. The Runs found lost before left it empty. Nothing changes a
-- lost Run but the cancel that closes it, so its last update is the
-- moment it was found lost.
UPDATE runs SET finished_at_ms = updated_at_ms WHERE state = 'lost' AND finished_at_ms IS NULL;
