-- Two narrow writes on console accounts for the runtime role, which serves
-- a replica's console but holds only SELECT (and last_signin_at_ms) on
-- console_users: creating the first owner with the setup code, and a
-- signed-in user changing their own password. Each is a SECURITY DEFINER
-- function owned by the schema's owner, so it writes as the owner, and
-- does exactly one thing; `ql db roles` grants EXECUTE to the runtime role
-- alone. Safe as SECURITY DEFINER because every name in them is
-- schema-qualified, the search_path is pinned to pg_catalog (pg_temp
-- last, never searched for functions or operators), and they build no SQL
-- from their arguments.

-- Creates the first account, an owner, only while no account exists at
-- all, and returns its creation time; NULL when one exists. The table
-- lock conflicts with itself and with every other insert, so two replicas'
-- setups at once, or one beside `ql users create`, take turns and the
-- second sees the first. The creation time is the cluster's clock
-- (pgstore.ClockMsSQL), written out: a function body takes no template.
CREATE FUNCTION qinglong.console_first_owner_create(p_id uuid, p_name text, p_hash text)
RETURNS bigint
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    created bigint;
BEGIN
    LOCK TABLE qinglong.console_users IN SHARE ROW EXCLUSIVE MODE;
    INSERT INTO qinglong.console_users (id, name, role, password_hash, created_at_ms)
    SELECT p_id, p_name, 'owner', p_hash, (extract(epoch FROM clock_timestamp()) * 1000)::bigint
     WHERE NOT EXISTS (SELECT 1 FROM qinglong.console_users)
    RETURNING created_at_ms INTO created;
    RETURN created;
END
$$;

-- Replaces the password hash of an enabled account only while it is still
-- p_current_hash (the hash the caller checked the current password
-- against), and reports whether it did: a change, a disable or a delete
-- in between refuses it.
CREATE FUNCTION qinglong.console_password_change(p_id uuid, p_current_hash text, p_new_hash text)
RETURNS boolean
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    UPDATE qinglong.console_users
       SET password_hash = p_new_hash
     WHERE id = p_id AND password_hash = p_current_hash AND disabled_at_ms IS NULL;
    RETURN FOUND;
END
$$;

REVOKE ALL ON FUNCTION qinglong.console_first_owner_create(uuid, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION qinglong.console_password_change(uuid, text, text) FROM PUBLIC;
