-- Project deletion: the compacted ledger totals of project ?1's triggers.
DELETE FROM occurrence_ledger_compacted WHERE trigger_id IN (SELECT id FROM triggers WHERE project_id = ?1)
