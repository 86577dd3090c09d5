-- Project deletion: the project ?1 itself, the last row naming its id.
DELETE FROM projects WHERE id = ?1
