-- Binds an account to projects (joined by ',', '' every project), never an
-- owner to some (the column's CHECK says so too): no row when there is no
-- such account or it is an owner, which user_role tells apart.
UPDATE console_users SET projects = ?2
 WHERE name = ?1 AND (?2 = '' OR role <> 'owner')
RETURNING id
