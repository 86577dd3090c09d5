-- Reads of `ql db roles`; everything it changes is DDL with quoted
-- identifiers, built in roles.go because utility statements take no
-- parameters.

-- name: RoleExists
-- Whether a role exists: a missing role is created only with a password.
SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = $1)

-- name: RoleMemberships
-- Every membership (group, member, grantor) with one of the roles $1 on
-- either side; the grantor is NULL when it no longer exists. Membership in
-- a QingLong role confers its privileges, so each one is revoked.
SELECT DISTINCT g.rolname, m.rolname, gr.rolname
  FROM pg_catalog.pg_auth_members am
  JOIN pg_catalog.pg_roles g ON g.oid = am.roleid
  JOIN pg_catalog.pg_roles m ON m.oid = am.member
  LEFT JOIN pg_catalog.pg_roles gr ON gr.oid = am.grantor
 WHERE g.rolname = ANY ($1::text[]) OR m.rolname = ANY ($1::text[])
 ORDER BY 1, 2, 3

-- name: SchemaTables
-- The tables of schema $1, each granted exactly the matrix of grants.go.
SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') ORDER BY c.relname

-- name: SchemaFunctions
-- The functions of schema $1 by signature, schema-qualified (the session's
-- search_path holds only pg_catalog and pg_temp), each granted exactly the
-- matrix of grants.go.
SELECT p.oid::pg_catalog.regprocedure::text FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = $1 ORDER BY 1
