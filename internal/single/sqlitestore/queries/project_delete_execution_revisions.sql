-- Project deletion: project ?1's execution revisions, after its Runs and
-- trigger revisions, the last rows naming them.
DELETE FROM execution_revisions WHERE project_id = ?1
