package pgstore

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RolesConfig configures EnsureRoles.
type RolesConfig struct {
	// Prefix of the five role names; "" means DefaultRolePrefix.
	Prefix string
	// Passwords by role kind. Required for a role that does not exist yet;
	// for an existing role a password, when given, replaces its current one.
	// They reach the server only as SCRAM-SHA-256 verifiers, so no
	// statement log can ever show them.
	Passwords map[RoleKind]string
	// Log, when set, receives one line per membership revoked, once the
	// change is committed.
	Log func(line string)
	// Done, when set, is told once the change is committed what became of
	// each role's login, in RoleKinds' order: an operator who rotated a
	// password confirms it was set, not merely that the role exists.
	Done func(kind RoleKind, outcome RoleOutcome)
}

// RoleOutcome says what EnsureRoles did to a role's login.
type RoleOutcome string

// What EnsureRoles did: created the role, set the password it was given
// for an existing role, or left an existing role's password as it was
// (none given).
const (
	RoleCreated      RoleOutcome = "created"
	RolePasswordSet  RoleOutcome = "password set"
	RolePasswordKept RoleOutcome = "password unchanged"
	// RoleNoLogin: a role nothing connects as (noLogin) was made or kept
	// NOLOGIN, without a password.
	RoleNoLogin RoleOutcome = "no login, no password (nothing connects as it)"
	// RoleNoLoginPasswordUnused: as RoleNoLogin, and the password given
	// for it was not set.
	RoleNoLoginPasswordUnused RoleOutcome = "no login, no password (nothing connects as it; the password given for it was not set: stop giving one)" //nolint:gosec // G101: an outcome's words, not a credential
)

var rolePrefixPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,40}$`)

// Validate names the field and its allowed shape.
func (c RolesConfig) Validate() error {
	if c.Prefix != "" && !rolePrefixPattern.MatchString(c.Prefix) {
		return qlerror.New(qlerror.Invalid, "role prefix %q must be 1–41 lower-case letters, digits or '_', starting with a letter", c.Prefix)
	}
	// Every short password is named at once, in the roles' order, so one
	// run tells the user all the passwords to replace.
	var short []string
	for _, k := range RoleKinds {
		if p, ok := c.Passwords[k]; ok && len(p) < 12 && !noLogin[k] {
			short = append(short, string(k))
		}
	}
	switch len(short) {
	case 0:
		return nil
	case 1:
		return qlerror.New(qlerror.Invalid, "password for the %s role is shorter than 12 characters; use a long random one", short[0])
	}
	return qlerror.New(qlerror.Invalid, "passwords for the %s roles are shorter than 12 characters; use a long random one for each",
		strings.Join(short[:len(short)-1], ", ")+" and "+short[len(short)-1])
}

// EnsureRoles creates or verifies the five roles (LOGIN but noLogin's), pins their
// search_path and session timeouts, revokes every role membership from or
// to them, and installs the exact grant matrix on the database the URL
// names. It needs a superuser (or a role with CREATEROLE that owns the
// database, on PostgreSQL 15). It is idempotent: run it after every
// `ql db migrate` so new tables get their grants and everything in the
// schema is owned by the migration role.
func EnsureRoles(ctx context.Context, url string, cfg RolesConfig) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	roles := RoleNames(cfg.Prefix)
	conn, err := connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := refuseUnknownHistory(ctx, conn); err != nil {
		return err
	}
	outcomes := make([]RoleOutcome, len(RoleKinds))
	for i, k := range RoleKinds {
		if outcomes[i], err = ensureRole(ctx, conn, roles.Name(k), k, cfg.Passwords[k]); err != nil {
			return err
		}
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return mapErr(err, "starting the grant transaction")
	}
	defer rollbackTx(ctx, tx)
	var settings []labelled
	for _, stmt := range append(roleSettingStatements(roles), grantStatements(roles)...) {
		settings = append(settings, labelled{stmt, "installing role settings and grants"})
	}
	if err := execInOrder(ctx, tx, settings); err != nil {
		return err
	}
	revoked, err := revokeMemberships(ctx, tx, roles)
	if err != nil {
		return err
	}
	tables, err := schemaTables(ctx, tx)
	if err != nil {
		return err
	}
	functions, err := schemaFunctions(ctx, tx)
	if err != nil {
		return err
	}
	var grants []labelled
	for _, t := range tables {
		for _, stmt := range tableGrantStatements(roles, t) {
			grants = append(grants, labelled{stmt, "installing grants on " + t})
		}
	}
	for _, f := range functions {
		for _, stmt := range functionGrantStatements(roles, f) {
			grants = append(grants, labelled{stmt, "installing grants on " + f})
		}
	}
	if err := execInOrder(ctx, tx, grants); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return mapErr(err, "committing grants")
	}
	if cfg.Log != nil {
		for _, line := range revoked {
			cfg.Log(line)
		}
	}
	if cfg.Done != nil {
		for i, k := range RoleKinds {
			cfg.Done(k, outcomes[i])
		}
	}
	return nil
}

// refuseUnknownHistory refuses, before any role or grant is touched, a
// database whose migration history this binary's stream does not begin
// (CodeHistoryAhead, CodeHistoryMismatch). An older build's grant matrix
// does not know the tables a newer build's migrations made, so installing
// it would revoke every role's grants on them: the newer replicas would
// fail what those tables serve, and each one started next would refuse
// privilege_drift. A database not migrated yet, or not as far as this
// binary, is what a first install and an upgrade run it on (roles before
// `ql db migrate`): its history is a prefix of the stream and passes.
func refuseUnknownHistory(ctx context.Context, conn *pgx.Conn) error {
	history, err := readHistory(ctx, conn)
	if err != nil {
		return err
	}
	return compareHistory(history, stream, false)
}

// labelled is a statement and what it is part of, for its error.
type labelled struct{ sql, what string }

// execInOrder runs the statements in order as one batch: one round trip
// for the grant matrix rather than one per statement (over a hundred),
// the first failure reported with its label and the rest not run (it
// aborts the transaction they are in).
func execInOrder(ctx context.Context, tx pgx.Tx, stmts []labelled) error {
	b := &pgx.Batch{}
	for _, s := range stmts {
		b.Queue(s.sql)
	}
	res := tx.SendBatch(ctx, b)
	for _, s := range stmts {
		if _, err := res.Exec(); err != nil {
			_ = res.Close() // the statement's error is the one to report
			return mapErr(err, s.what)
		}
	}
	return mapErr(res.Close(), "installing role settings and grants")
}

// unprivileged are the attributes every QingLong role has.
const unprivileged = "NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT"

// noLogin are the roles nothing connects as. worker_ingress was made for
// an ingress with a pool of its own; the ingress runs inside each replica
// over the runtime role's pool instead (docs/architecture.md, "Workers"),
// so a login for it would only be one more credential to keep and rotate.
// It stays, NOLOGIN and holding CONNECT and USAGE only, so that an
// installation's roles and readiness's exact matrix keep their shape.
var noLogin = map[RoleKind]bool{RoleWorkerIngress: true}

func ensureRole(ctx context.Context, conn *pgx.Conn, name string, kind RoleKind, password string) (RoleOutcome, error) {
	var exists bool
	if err := conn.QueryRow(ctx, sqlRoleExists, name).Scan(&exists); err != nil {
		return "", mapErr(err, "looking up role "+name)
	}
	ident := pgx.Identifier{name}.Sanitize()
	if noLogin[kind] {
		// PASSWORD NULL drops the credential an installation made before
		// the role lost its login still holds.
		stmt := "CREATE ROLE " + ident + " NOLOGIN " + unprivileged
		if exists {
			stmt = "ALTER ROLE " + ident + " NOLOGIN " + unprivileged + " PASSWORD NULL"
		}
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return "", mapErr(err, "creating or altering role "+name)
		}
		if password != "" {
			return RoleNoLoginPasswordUnused, nil
		}
		return RoleNoLogin, nil
	}
	outcome := RolePasswordKept
	stmt := "ALTER ROLE " + ident + " LOGIN " + unprivileged
	if !exists {
		if password == "" {
			return "", qlerror.New(qlerror.Invalid, "role %s does not exist and no password was given for the %s role; set QL_DATABASE_%s_PASSWORD or put it in the password file directory",
				name, kind, strings.ToUpper(string(kind)))
		}
		stmt = "CREATE ROLE " + ident + " LOGIN " + unprivileged
		outcome = RoleCreated
	}
	if password != "" {
		verifier, err := scramVerifier(password)
		if err != nil {
			return "", err
		}
		stmt += " PASSWORD " + quoteLiteral(verifier)
		if exists {
			outcome = RolePasswordSet
		}
	}
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return "", mapErr(err, "creating or altering role "+name)
	}
	return outcome, nil
}

// roleSettingStatements pin each role's search_path and timeouts (for
// every database) and drop overrides of them made for this database only,
// which would take precedence.
func roleSettingStatements(r Roles) []string {
	var out []string
	for _, k := range RoleKinds {
		ident := pgx.Identifier{r.Name(k)}.Sanitize()
		settings := []string{"search_path"}
		out = append(out, "ALTER ROLE "+ident+" SET search_path = "+safeSearchPath)
		for _, b := range roleBounds[k] {
			settings = append(settings, b.setting)
			out = append(out, "ALTER ROLE "+ident+" SET "+b.setting+" = "+quoteLiteral(pgDuration(b.max)))
		}
		for _, name := range settings {
			out = append(out, fmt.Sprintf(`DO $$ BEGIN EXECUTE format('ALTER ROLE %s IN DATABASE %%I RESET %s', current_database()); END $$`, ident, name))
		}
	}
	return out
}

// revokeMemberships removes every membership of another role in one of
// ours and of ours in another role, and says which: membership in a
// QingLong role confers its privileges (an intruder granted the admin role
// could publish), and membership of ours in another role widens the exact
// matrix.
func revokeMemberships(ctx context.Context, tx pgx.Tx, r Roles) ([]string, error) {
	rows, err := tx.Query(ctx, sqlRoleMemberships, roleList(r))
	if err != nil {
		return nil, mapErr(err, "listing role memberships")
	}
	type membership struct {
		group, member string
		grantor       *string
	}
	found, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (membership, error) {
		var m membership
		err := row.Scan(&m.group, &m.member, &m.grantor)
		return m, err
	})
	if err != nil {
		return nil, mapErr(err, "listing role memberships")
	}
	var revoked []string
	for _, m := range found {
		stmt := "REVOKE " + pgx.Identifier{m.group}.Sanitize() + " FROM " + pgx.Identifier{m.member}.Sanitize()
		// From PostgreSQL 16 on, a membership is one grant per grantor and
		// a REVOKE without GRANTED BY removes only the revoker's own.
		// CASCADE: grants the member made with its ADMIN OPTION go too.
		if m.grantor != nil {
			stmt += " GRANTED BY " + pgx.Identifier{*m.grantor}.Sanitize()
		}
		stmt += " CASCADE"
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return nil, mapErr(err, "revoking membership of "+m.member+" in "+m.group)
		}
		revoked = append(revoked, fmt.Sprintf("revoked membership: %s was a member of %s", m.member, m.group))
	}
	// A grant this role may not revoke survives with only a warning.
	var left []string
	if err := tx.QueryRow(ctx, sqlRoleMembershipsLeft, roleList(r)).Scan(&left); err != nil {
		return nil, mapErr(err, "listing role memberships")
	}
	if len(left) > 0 {
		return nil, qlerror.New(qlerror.FailedPrecondition, "role memberships remain after revoking them: %s; run `ql db roles` as a superuser, or revoke them as the roles that granted them", strings.Join(left, ", "))
	}
	return slices.Compact(revoked), nil
}

// pgDuration renders a timeout the way PostgreSQL reads it.
func pgDuration(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
}

// grantStatements set database- and schema-level privileges: PUBLIC
// revoked, CONNECT for all five, the schema owned by the migration role
// and usable by the others.
func grantStatements(r Roles) []string {
	var names []string
	for _, k := range RoleKinds {
		names = append(names, pgx.Identifier{r.Name(k)}.Sanitize())
	}
	all, users := strings.Join(names, ", "), strings.Join(names[1:], ", ")
	schema := pgx.Identifier{SchemaName}.Sanitize()
	return []string{
		`DO $$ BEGIN EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database()); END $$`,
		fmt.Sprintf(`DO $$ BEGIN EXECUTE format('REVOKE ALL ON DATABASE %%I FROM %s', current_database()); END $$`, all),
		fmt.Sprintf(`DO $$ BEGIN EXECUTE format('GRANT CONNECT ON DATABASE %%I TO %s', current_database()); END $$`, all),
		"CREATE SCHEMA IF NOT EXISTS " + schema + " AUTHORIZATION " + pgx.Identifier{r.Migration}.Sanitize(),
		"ALTER SCHEMA " + schema + " OWNER TO " + pgx.Identifier{r.Migration}.Sanitize(),
		"REVOKE ALL ON SCHEMA " + schema + " FROM PUBLIC, " + users,
		"GRANT USAGE ON SCHEMA " + schema + " TO " + users,
		"REVOKE ALL ON ALL TABLES IN SCHEMA " + schema + " FROM PUBLIC, " + users,
		"REVOKE ALL ON ALL FUNCTIONS IN SCHEMA " + schema + " FROM PUBLIC, " + users,
	}
}

// tableGrantStatements hand a table to the migration role and grant the
// matrix's privileges on it.
func tableGrantStatements(r Roles, table string) []string {
	qualified := pgx.Identifier{SchemaName, table}.Sanitize()
	out := []string{"ALTER TABLE " + qualified + " OWNER TO " + pgx.Identifier{r.Migration}.Sanitize()}
	for _, k := range RoleKinds {
		privs := tableGrants[table][k]
		if len(privs) == 0 {
			continue
		}
		out = append(out, "GRANT "+strings.Join(privs, ", ")+" ON "+qualified+" TO "+pgx.Identifier{r.Name(k)}.Sanitize())
	}
	for _, k := range RoleKinds {
		for col, privs := range columnGrants[table][k] {
			for _, p := range privs {
				out = append(out, "GRANT "+p+" ("+pgx.Identifier{col}.Sanitize()+") ON "+qualified+" TO "+pgx.Identifier{r.Name(k)}.Sanitize())
			}
		}
	}
	return out
}

// functionGrantStatements hand a function (qualified, as PostgreSQL
// prints its signature) to the migration role, which owns the tables it
// writes, and grant EXECUTE as the matrix says.
func functionGrantStatements(r Roles, qualified string) []string {
	out := []string{"ALTER FUNCTION " + qualified + " OWNER TO " + pgx.Identifier{r.Migration}.Sanitize()}
	for _, k := range RoleKinds {
		privs := functionGrants[strings.TrimPrefix(qualified, SchemaName+".")][k]
		if len(privs) > 0 {
			out = append(out, "GRANT "+strings.Join(privs, ", ")+" ON FUNCTION "+qualified+" TO "+pgx.Identifier{r.Name(k)}.Sanitize())
		}
	}
	return out
}

// schemaFunctions lists the schema's functions by qualified signature.
func schemaFunctions(ctx context.Context, q querier) ([]string, error) {
	rows, err := q.Query(ctx, sqlSchemaFunctions, SchemaName)
	if err != nil {
		return nil, mapErr(err, "listing functions")
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, mapErr(err, "listing functions")
}

func schemaTables(ctx context.Context, q querier) ([]string, error) {
	rows, err := q.Query(ctx, sqlSchemaTables, SchemaName)
	if err != nil {
		return nil, mapErr(err, "listing tables")
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, mapErr(err, "listing tables")
}

// scramVerifier computes the SCRAM-SHA-256 verifier PostgreSQL stores
// (RFC 5802/7677), so the clear password never leaves this process.
func scramVerifier(password string) (string, error) {
	const iterations = 4096
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", qlerror.Wrap(qlerror.Internal, err, "drawing a password salt")
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return "", qlerror.Wrap(qlerror.Internal, err, "deriving the password verifier")
	}
	clientKey := hmacSHA256(salted, "Client Key")
	storedKey := sha256.Sum256(clientKey)
	serverKey := hmacSHA256(salted, "Server Key")
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", iterations, b64(salt), b64(storedKey[:]), b64(serverKey)), nil
}

func hmacSHA256(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// quoteLiteral quotes a string literal for a utility statement, which
// cannot take parameters (standard_conforming_strings is on since 9.1).
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// sqlRoleMembershipsLeft is every membership sqlRoleMemberships still
// finds, one "member in group" each. Composed from that statement rather
// than written out again, so the check after revoking can never look at
// fewer memberships than the revoking did.
var sqlRoleMembershipsLeft = `SELECT coalesce(array_agg(DISTINCT member || ' in ' || grp), '{}') FROM (` +
	sqlRoleMemberships + `) m(grp, member, grantor)`
