-- Statements of the readiness checks (readiness*.go). All are read-only and
-- use only pg_catalog and tables every QingLong role may SELECT.

-- name: PinSearchPath
-- Catalog functions print names unqualified when their schema is on the
-- search_path; pinning it makes the schema fingerprint identical for
-- every role and session.
SET LOCAL search_path TO pg_catalog

-- name: ServerState
-- Writable primary, read-only default and version, in one round trip.
-- default_transaction_read_only, not transaction_read_only: the check
-- itself runs in a read-only transaction.
SELECT pg_is_in_recovery(), current_setting('default_transaction_read_only'), current_setting('server_version_num')

-- name: CapabilityAll
-- Capability must be exactly one row.
SELECT component, version, name FROM qinglong.schema_capability ORDER BY component

-- name: SchemaFingerprint
-- The schema fingerprint: every relation, column, constraint, index,
-- user trigger and function in schema qinglong, one line each. NOT NULL
-- constraints appear as column attributes only (PostgreSQL 18 also lists
-- them in pg_constraint).
WITH ns AS (SELECT oid FROM pg_namespace WHERE nspname = 'qinglong')
SELECT line FROM (
    SELECT format('relation %s kind=%s', c.relname, c.relkind) AS line
      FROM pg_class c JOIN ns ON ns.oid = c.relnamespace
    UNION ALL
    SELECT format('column %s.%s %s%s%s', c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
                  CASE WHEN a.attnotnull THEN ' not null' ELSE '' END,
                  coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), ''))
      FROM pg_attribute a
      JOIN pg_class c ON c.oid = a.attrelid
      JOIN ns ON ns.oid = c.relnamespace
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
    UNION ALL
    SELECT format('constraint %s.%s %s', c.relname, con.conname, pg_get_constraintdef(con.oid))
      FROM pg_constraint con
      JOIN pg_class c ON c.oid = con.conrelid
      JOIN ns ON ns.oid = c.relnamespace
     WHERE con.contype IN ('p', 'u', 'f', 'c', 'x')
    UNION ALL
    SELECT format('index %s', pg_get_indexdef(i.indexrelid))
      FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN ns ON ns.oid = c.relnamespace
    UNION ALL
    SELECT format('trigger %s.%s', c.relname, t.tgname)
      FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN ns ON ns.oid = c.relnamespace
     WHERE NOT t.tgisinternal
    UNION ALL
    SELECT format('function %s', p.oid::regprocedure)
      FROM pg_proc p JOIN ns ON ns.oid = p.pronamespace
) lines
ORDER BY line

-- name: RolesOfPrefix
-- How many of the roles ($1) exist, and who this session connects as: a
-- readiness check whose roles are all missing names the prefix it was
-- given and the one the session's own role suggests.
SELECT count(r.rolname)::int, current_user::text
  FROM unnest($1::text[]) AS n (name)
  LEFT JOIN pg_roles r ON r.rolname = n.name

-- name: PrivilegeFingerprint
-- The privilege fingerprint of the four roles ($1): attributes,
-- memberships in both directions, database/schema/table/column grants
-- and owners. Owners' own ACL entries are left out (ownership is checked
-- instead); every other grantee of a schema object is listed, PUBLIC
-- included. Outside the schema, every object our roles own (but the
-- TOAST tables of the schema's own tables) and every
-- privilege granted to one of them by name is listed (none is expected):
-- a grant there widens the exact matrix just the same. A function of the
-- schema that PUBLIC may execute is listed too: the schema's functions are
-- SECURITY DEFINER writes on accounts.
WITH ours AS (SELECT oid, rolname FROM pg_roles WHERE rolname = ANY ($1::text[])),
     ns AS (SELECT oid, nspowner, nspacl FROM pg_namespace WHERE nspname = 'qinglong'),
     rels AS (SELECT c.* FROM pg_class c JOIN ns ON ns.oid = c.relnamespace WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f'))
SELECT line FROM (
    SELECT format('role %s login=%s superuser=%s createdb=%s createrole=%s replication=%s bypassrls=%s',
                  r.rolname, r.rolcanlogin::text, r.rolsuper::text, r.rolcreatedb::text, r.rolcreaterole::text, r.rolreplication::text, r.rolbypassrls::text) AS line
      FROM pg_roles r JOIN ours ON ours.oid = r.oid
    UNION ALL
    SELECT format('role %s is a member of %s', ours.rolname, g.rolname)
      FROM pg_auth_members m JOIN ours ON ours.oid = m.member JOIN pg_roles g ON g.oid = m.roleid
    UNION ALL
    SELECT format('role %s has member %s', ours.rolname, mem.rolname)
      FROM pg_auth_members m JOIN ours ON ours.oid = m.roleid JOIN pg_roles mem ON mem.oid = m.member
    UNION ALL
    SELECT format('database owned by %s', ours.rolname)
      FROM pg_database d JOIN ours ON ours.oid = d.datdba WHERE d.datname = current_database()
    UNION ALL
    SELECT format('database grants %s to %s', a.privilege_type, coalesce(ours.rolname, 'PUBLIC'))
      FROM pg_database d, aclexplode(coalesce(d.datacl, acldefault('d', d.datdba))) a
      LEFT JOIN ours ON ours.oid = a.grantee
     WHERE d.datname = current_database() AND a.grantee <> d.datdba AND (a.grantee = 0 OR ours.oid IS NOT NULL)
    UNION ALL
    SELECT format('schema owned by %s', pg_get_userbyid(ns.nspowner)) FROM ns
    UNION ALL
    SELECT format('schema grants %s to %s', a.privilege_type, coalesce(pg_get_userbyid(nullif(a.grantee, 0)), 'PUBLIC'))
      FROM ns, aclexplode(coalesce(ns.nspacl, acldefault('n', ns.nspowner))) a
     WHERE a.grantee <> ns.nspowner
    UNION ALL
    SELECT format('table %s owned by %s', rels.relname, pg_get_userbyid(rels.relowner)) FROM rels
    UNION ALL
    SELECT format('table %s grants %s to %s', rels.relname, a.privilege_type, coalesce(pg_get_userbyid(nullif(a.grantee, 0)), 'PUBLIC'))
      FROM rels, aclexplode(coalesce(rels.relacl, acldefault('r', rels.relowner))) a
     WHERE a.grantee <> rels.relowner
    UNION ALL
    SELECT format('column %s.%s grants %s to %s', rels.relname, att.attname, a.privilege_type, coalesce(pg_get_userbyid(nullif(a.grantee, 0)), 'PUBLIC'))
      FROM rels JOIN pg_attribute att ON att.attrelid = rels.oid, aclexplode(att.attacl) a
     WHERE att.attacl IS NOT NULL
    UNION ALL
    SELECT format('outside the schema: schema %s owned by %s', n.nspname, ours.rolname)
      FROM pg_namespace n JOIN ours ON ours.oid = n.nspowner WHERE n.nspname <> 'qinglong'
    UNION ALL
    SELECT format('outside the schema: schema %s grants %s to %s', n.nspname, a.privilege_type, ours.rolname)
      FROM pg_namespace n, aclexplode(n.nspacl) a JOIN ours ON ours.oid = a.grantee
     WHERE n.nspname <> 'qinglong'
    UNION ALL
    SELECT format('outside the schema: relation %s.%s owned by %s', n.nspname, c.relname, ours.rolname)
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN ours ON ours.oid = c.relowner
     WHERE n.nspname NOT IN ('qinglong', 'pg_toast')
    UNION ALL
    SELECT format('outside the schema: relation %s.%s grants %s to %s', n.nspname, c.relname, a.privilege_type, ours.rolname)
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace, aclexplode(c.relacl) a JOIN ours ON ours.oid = a.grantee
     WHERE n.nspname <> 'qinglong' AND c.relacl IS NOT NULL
    UNION ALL
    SELECT format('outside the schema: column %s.%s.%s grants %s to %s', n.nspname, c.relname, att.attname, a.privilege_type, ours.rolname)
      FROM pg_attribute att JOIN pg_class c ON c.oid = att.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace,
           aclexplode(att.attacl) a JOIN ours ON ours.oid = a.grantee
     WHERE n.nspname <> 'qinglong' AND att.attacl IS NOT NULL
    UNION ALL
    SELECT format('function %s owned by %s', p.oid::regprocedure, ours.rolname)
      FROM pg_proc p JOIN ours ON ours.oid = p.proowner
    UNION ALL
    SELECT format('function %s grants %s to %s', p.oid::regprocedure, a.privilege_type, ours.rolname)
      FROM pg_proc p, aclexplode(p.proacl) a JOIN ours ON ours.oid = a.grantee
     WHERE p.proacl IS NOT NULL AND a.grantee <> p.proowner
    UNION ALL
    SELECT format('function %s grants %s to PUBLIC', p.oid::regprocedure, a.privilege_type)
      FROM pg_proc p JOIN ns ON ns.oid = p.pronamespace, aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
     WHERE a.grantee = 0
    UNION ALL
    SELECT format('parameter %s grants %s to %s', pa.parname, a.privilege_type, ours.rolname)
      FROM pg_parameter_acl pa, aclexplode(pa.paracl) a JOIN ours ON ours.oid = a.grantee
) lines
ORDER BY line

-- name: SessionSearchPath
-- The session's own search_path, read before the transaction pins it.
-- Qualified: until it is verified, the session's path may resolve an
-- unqualified name anywhere.
SELECT pg_catalog.current_setting('search_path')

-- name: LiftStatementTimeout
-- Lifts this session's statement_timeout, so that after a readiness
-- statement was cancelled by one too short, the read below is not
-- cancelled in turn (readiness.go, cancelledByTimeout).
SET statement_timeout = 0

-- name: SessionStatementTimeout
-- The statement_timeout the session had before LiftStatementTimeout (the
-- value RESET restores) and where it was set, as PostgreSQL ranks the
-- settings: the role's in this database, the role's, the database's, else
-- the server's own configuration.
SELECT s.reset_val || coalesce(s.unit, ''),
       coalesce((SELECT CASE WHEN d.setrole <> 0 AND d.setdatabase <> 0 THEN 'database user'
                             WHEN d.setrole <> 0 THEN 'user'
                             ELSE 'database' END
                   FROM pg_catalog.pg_db_role_setting d
                  WHERE d.setrole IN (0, (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = current_user))
                    AND d.setdatabase IN (0, (SELECT b.oid FROM pg_catalog.pg_database b WHERE b.datname = pg_catalog.current_database()))
                    AND NOT (d.setrole = 0 AND d.setdatabase = 0)
                    AND EXISTS (SELECT 1 FROM pg_catalog.unnest(d.setconfig) c WHERE c LIKE 'statement\_timeout=%')
                  ORDER BY d.setrole <> 0 AND d.setdatabase <> 0 DESC, d.setrole <> 0 DESC
                  LIMIT 1), 'configuration file')
  FROM pg_catalog.pg_settings s
 WHERE s.name = 'statement_timeout'

-- name: RoleSettings
-- Per-role settings of the roles $1, for every database (false) and
-- for this one only (true), which takes precedence.
SELECT r.rolname, s.setdatabase <> 0, s.setconfig
  FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
 WHERE r.rolname = ANY ($1::text[])
   AND s.setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
 ORDER BY 1, 2

-- name: UnsafeSchemas
-- Who, besides the roles $1 and superusers, may create objects in the
-- schemas $2 — by owning one or by a CREATE grant (PUBLIC included).
-- Such an object could shadow what our unqualified names resolve to.
-- The qinglong schema's owner is left to the privilege check, which
-- requires exactly the migration role.
WITH ours AS (SELECT oid FROM pg_roles WHERE rolname = ANY ($1::text[])),
     ns AS (SELECT oid, nspname, nspowner, nspacl FROM pg_namespace WHERE nspname = ANY ($2::text[]))
SELECT line FROM (
    SELECT format('schema %s is owned by %s', ns.nspname, r.rolname) AS line
      FROM ns JOIN pg_roles r ON r.oid = ns.nspowner
     WHERE ns.nspname <> 'qinglong' AND NOT r.rolsuper AND r.oid NOT IN (SELECT oid FROM ours)
    UNION ALL
    SELECT format('schema %s grants CREATE to %s', ns.nspname, coalesce(r.rolname, 'PUBLIC'))
      FROM ns, aclexplode(coalesce(ns.nspacl, acldefault('n', ns.nspowner))) a
      LEFT JOIN pg_roles r ON r.oid = a.grantee
     WHERE a.privilege_type = 'CREATE' AND a.grantee <> ns.nspowner
       AND (a.grantee = 0 OR NOT (r.rolsuper OR r.oid IN (SELECT oid FROM ours)))
) lines
ORDER BY line

-- name: ServerSettings
-- Server settings the cluster needs a minimum of.
SELECT current_setting('max_pred_locks_per_transaction')::int

-- name: SessionRolePowers
-- What the session can do beyond the runtime role's grants (one line
-- each, for the role it logged in as and the one it acts as). The
-- replica and `ql db check` refuse a runtime connection that is a
-- superuser, bypasses row-level security, creates roles or databases,
-- owns the qinglong schema or its relations, or is (or is a member of)
-- one of the other QingLong roles ($1): each voids the least-privilege
-- matrix the privilege check audits, since the replica would act with
-- those rights. A superuser is reported as that alone: it holds
-- everything else too.
WITH me AS (SELECT DISTINCT oid, rolname, rolsuper, rolbypassrls, rolcreaterole, rolcreatedb
              FROM pg_roles WHERE rolname IN (session_user, current_user)),
     ns AS (SELECT oid, nspname, nspowner FROM pg_namespace WHERE nspname = 'qinglong')
SELECT line FROM (
    SELECT format('%s is a superuser (SUPERUSER)', rolname) AS line FROM me WHERE rolsuper
    UNION ALL
    SELECT format('%s bypasses row-level security (BYPASSRLS)', rolname) FROM me WHERE rolbypassrls AND NOT rolsuper
    UNION ALL
    SELECT format('%s may create roles (CREATEROLE)', rolname) FROM me WHERE rolcreaterole AND NOT rolsuper
    UNION ALL
    SELECT format('%s may create databases (CREATEDB)', rolname) FROM me WHERE rolcreatedb AND NOT rolsuper
    UNION ALL
    SELECT format('%s owns the schema %s', me.rolname, ns.nspname)
      FROM me, ns WHERE NOT me.rolsuper AND pg_has_role(me.oid, ns.nspowner, 'MEMBER')
    UNION ALL
    SELECT format('%s owns tables, views or sequences of the schema %s (%s, %s among them)', me.rolname, ns.nspname, count(*), min(c.relname))
      FROM me, ns JOIN pg_class c ON c.relnamespace = ns.oid
     WHERE NOT me.rolsuper AND c.relkind NOT IN ('i', 'I') -- an index is its table's
       AND pg_has_role(me.oid, c.relowner, 'MEMBER')
     GROUP BY me.rolname, ns.nspname
    UNION ALL
    SELECT format('%s is %s or a member of it', me.rolname, q.rolname)
      FROM me, pg_roles q
     WHERE NOT me.rolsuper AND q.rolname = ANY ($1::text[]) AND pg_has_role(me.oid, q.oid, 'MEMBER')
) lines
ORDER BY line
