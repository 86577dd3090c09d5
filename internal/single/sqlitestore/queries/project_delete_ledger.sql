-- Project deletion: the occurrence ledger of project ?1's triggers.
DELETE FROM occurrence_ledger WHERE trigger_id IN (SELECT id FROM triggers WHERE project_id = ?1)
