-- Forgets a declared package once its uninstall Run is admitted; no row
-- deleted is a package never declared, which the caller refuses.
DELETE FROM dependencies WHERE kind = ?1 AND name = ?2
