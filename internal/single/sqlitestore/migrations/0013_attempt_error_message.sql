-- An attempt's error message says in words why it ended as it did (a
-- command that could not start, a signal that killed it), as the cluster's
-- attempts do. Attempts recorded before it have none.
ALTER TABLE attempts ADD COLUMN error_message TEXT NOT NULL DEFAULT '';
