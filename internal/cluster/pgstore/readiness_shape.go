package pgstore

import (
	"context"
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
)

// schemaFingerprint is what the migration stream creates, as
// sqlSchemaFingerprint prints it. TestSchemaFingerprintMatchesMigrations
// rebuilds it from a freshly migrated database (go test -run
// TestSchemaFingerprint -update-fingerprint) and fails when it is stale.
//
//go:embed schema_fingerprint.txt
var schemaFingerprint string

func expectedSchemaLines() []string {
	return strings.Split(strings.TrimSpace(schemaFingerprint), "\n")
}

func checkSchema(ctx context.Context, tx pgx.Tx, _ Roles) error {
	got, err := fingerprint(ctx, tx, sqlSchemaFingerprint)
	if err != nil {
		return &ReadinessError{Code: CodeUnavailable, Err: err}
	}
	if d := diffLines(expectedSchemaLines(), got); d != "" {
		return &ReadinessError{Code: CodeSchemaDrift, Detail: d}
	}
	return nil
}

func checkPrivileges(ctx context.Context, tx pgx.Tx, roles Roles) error {
	got, err := fingerprint(ctx, tx, sqlPrivilegeFingerprint, roleList(roles))
	if err != nil {
		return &ReadinessError{Code: CodeUnavailable, Err: err}
	}
	if d := diffLines(withoutLagging(expectedPrivilegeLines(roles), got, roles), got); d != "" {
		if missing := prefixMissing(ctx, tx, roles); missing != "" {
			d = missing + "\n" + d
		}
		return &ReadinessError{Code: CodePrivilegeDrift, Detail: d}
	}
	return nil
}

// prefixMissing explains a drift whose roles do not exist at all: the
// role prefix is most likely wrong (the grants then differ only because
// nothing was granted to names nobody created). "" when any role exists
// or the catalog cannot say.
func prefixMissing(ctx context.Context, tx pgx.Tx, roles Roles) string {
	var present int
	var user string
	if err := tx.QueryRow(ctx, sqlRolesOfPrefix, roleList(roles)).Scan(&present, &user); err != nil || present > 0 {
		return ""
	}
	hint := ""
	if p, ok := strings.CutSuffix(user, string(RoleRuntime)); ok && user != roles.Runtime {
		hint = fmt.Sprintf("; this session connects as %s, whose prefix is %s: give --role-prefix %s", user, p, p)
	}
	return fmt.Sprintf("none of the roles %s exists: the role prefix is likely wrong (`ql db roles --role-prefix P` created the roles with P)%s",
		strings.Join(roleList(roles), ", "), hint)
}

func roleList(r Roles) []string {
	out := make([]string, 0, len(RoleKinds))
	for _, k := range RoleKinds {
		out = append(out, r.Name(k))
	}
	return out
}

func fingerprint(ctx context.Context, q querier, sql string, args ...any) ([]string, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, mapErr(err, "reading the catalog")
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, mapErr(err, "reading the catalog")
}

// expectedPrivilegeLines renders the exact matrix the way
// sqlPrivilegeFingerprint prints the live state.
func expectedPrivilegeLines(r Roles) []string {
	var out []string
	for _, k := range RoleKinds {
		name := r.Name(k)
		out = append(out,
			fmt.Sprintf("role %s login=%t superuser=false createdb=false createrole=false replication=false bypassrls=false", name, !noLogin[k]),
			fmt.Sprintf("database grants CONNECT to %s", name))
		if k != RoleMigration {
			out = append(out, fmt.Sprintf("schema grants USAGE to %s", name))
		}
	}
	out = append(out, "schema owned by "+r.Migration)
	for _, t := range grantedTables() {
		out = append(out, fmt.Sprintf("table %s owned by %s", t, r.Migration))
		for k, privs := range tableGrants[t] {
			for _, p := range privs {
				out = append(out, fmt.Sprintf("table %s grants %s to %s", t, p, r.Name(k)))
			}
		}
		for k, cols := range columnGrants[t] {
			for col, privs := range cols {
				for _, p := range privs {
					out = append(out, fmt.Sprintf("column %s.%s grants %s to %s", t, col, p, r.Name(k)))
				}
			}
		}
	}
	for _, f := range grantedFunctions() {
		out = append(out, fmt.Sprintf("function %s.%s owned by %s", SchemaName, f, r.Migration))
		for k, privs := range functionGrants[f] {
			for _, p := range privs {
				out = append(out, fmt.Sprintf("function %s.%s grants %s to %s", SchemaName, f, p, r.Name(k)))
			}
		}
	}
	sort.Strings(out)
	return out
}

// withoutLagging drops from want the lagGrants lines got lacks, and
// the NOLOGIN line of a noLogin role that still has the login an
// installation gave it before (until its next `ql db roles`: the role
// holds no more than before, and a replica does not stop over it).
func withoutLagging(want, got []string, r Roles) []string {
	held := make(map[string]bool, len(got))
	for _, g := range got {
		held[g] = true
	}
	lagging := map[string]bool{}
	for k := range noLogin {
		loginLine := fmt.Sprintf("role %s login=true superuser=false createdb=false createrole=false replication=false bypassrls=false", r.Name(k))
		if held[loginLine] {
			lagging[strings.Replace(loginLine, "login=true", "login=false", 1)] = true
			want = append(want, loginLine)
		}
	}
	for t, kinds := range lagGrants {
		for k, privs := range kinds {
			for _, p := range privs {
				if line := fmt.Sprintf("table %s grants %s to %s", t, p, r.Name(k)); !held[line] {
					lagging[line] = true
				}
			}
		}
	}
	out := make([]string, 0, len(want))
	for _, w := range want {
		if !lagging[w] {
			out = append(out, w)
		}
	}
	return out
}

// diffLines names the first line missing from got and the first one got
// has in excess; "" when equal.
func diffLines(want, got []string) string {
	wantSet := make(map[string]bool, len(want))
	for _, w := range want {
		wantSet[w] = true
	}
	gotSet := make(map[string]bool, len(got))
	for _, g := range got {
		gotSet[g] = true
	}
	var missing, extra []string
	for _, w := range want {
		if !gotSet[w] {
			missing = append(missing, w)
		}
	}
	for _, g := range got {
		if !wantSet[g] {
			extra = append(extra, g)
		}
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, fmt.Sprintf("missing %q", missing[0]))
		if len(missing) > 1 {
			parts[len(parts)-1] += fmt.Sprintf(" and %d more", len(missing)-1)
		}
	}
	if len(extra) > 0 {
		parts = append(parts, fmt.Sprintf("unexpected %q", extra[0]))
		if len(extra) > 1 {
			parts[len(parts)-1] += fmt.Sprintf(" and %d more", len(extra)-1)
		}
	}
	return strings.Join(parts, "; ")
}
