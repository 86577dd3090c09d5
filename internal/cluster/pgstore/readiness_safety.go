package pgstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// checkSearchPath fails closed (CodeUnsafeSearchPath) unless this session
// resolves names through exactly safeSearchPath and nobody but our roles
// and superusers may create objects in a schema on that path or in the
// qinglong schema.
func checkSearchPath(session string) func(context.Context, pgx.Tx, Roles) error {
	return func(ctx context.Context, tx pgx.Tx, roles Roles) error {
		if !isSafePath(session) {
			return &ReadinessError{Code: CodeUnsafeSearchPath, Detail: fmt.Sprintf("this session's search_path is %q, want %q", session, safeSearchPath)}
		}
		schemas := append(pathSchemas(safeSearchPath), SchemaName)
		unsafe, err := fingerprint(ctx, tx, sqlUnsafeSchemas, roleList(roles), schemas)
		if err != nil {
			return &ReadinessError{Code: CodeUnavailable, Err: err}
		}
		if len(unsafe) > 0 {
			return &ReadinessError{Code: CodeUnsafeSearchPath, Detail: strings.Join(unsafe, "; ")}
		}
		return nil
	}
}

// checkRolePaths fails closed (CodeUnsafeSearchPath) unless every QingLong
// role carries exactly safeSearchPath, so a session that sets nothing (a
// tool, a future client) is as safe as ours. It runs after the privilege
// check, which reports roles that do not exist.
func checkRolePaths(ctx context.Context, tx pgx.Tx, roles Roles) error {
	settings, err := readRoleSettings(ctx, tx, roles)
	if err != nil {
		return err
	}
	for _, k := range RoleKinds {
		name := roles.Name(k)
		path, ok := settings[name]["search_path"]
		if !ok {
			return &ReadinessError{Code: CodeUnsafeSearchPath, Detail: fmt.Sprintf("role %s has no search_path setting, want %q", name, safeSearchPath)}
		}
		if !isSafePath(path) {
			return &ReadinessError{Code: CodeUnsafeSearchPath, Detail: fmt.Sprintf("role %s has search_path %q, want %q", name, path, safeSearchPath)}
		}
	}
	return nil
}

// checkSessionBounds fails (CodeUnboundedSession) when a role's statement
// or idle-in-transaction timeout is missing, zero (disabled) or above its
// ceiling.
func checkSessionBounds(ctx context.Context, tx pgx.Tx, roles Roles) error {
	settings, err := readRoleSettings(ctx, tx, roles)
	if err != nil {
		return err
	}
	for _, k := range RoleKinds {
		name := roles.Name(k)
		for _, b := range roleBounds[k] {
			raw, ok := settings[name][b.setting]
			if !ok {
				return &ReadinessError{Code: CodeUnboundedSession, Detail: fmt.Sprintf("role %s has no %s setting, want at most %s", name, b.setting, pgDuration(b.max))}
			}
			d, err := parsePGDuration(raw)
			if err != nil || d <= 0 || d > b.max {
				return &ReadinessError{Code: CodeUnboundedSession, Detail: fmt.Sprintf("role %s has %s = %q, want more than 0 and at most %s", name, b.setting, raw, pgDuration(b.max))}
			}
		}
	}
	return nil
}

// checkServerSettings fails (CodeServerSettingTooSmall) when a server
// setting is below what the cluster needs.
func checkServerSettings(ctx context.Context, tx pgx.Tx, _ Roles) error {
	var predLocks int
	if err := tx.QueryRow(ctx, sqlServerSettings).Scan(&predLocks); err != nil {
		return &ReadinessError{Code: CodeUnavailable, Err: mapErr(err, "reading server settings")}
	}
	if predLocks < minPredLocksPerTransaction {
		return &ReadinessError{Code: CodeServerSettingTooSmall, Detail: fmt.Sprintf("max_pred_locks_per_transaction is %d, want at least %d", predLocks, minPredLocksPerTransaction)}
	}
	return nil
}

// checkRuntimeRole fails (CodeRoleTooPowerful) when the session's role
// may do more than the runtime role: the privilege check audits the
// QingLong roles' grants, not who connects, so a replica connected as a
// superuser, the schema's owner or the admin role would pass it and act
// with rights the matrix denies the runtime.
func checkRuntimeRole(ctx context.Context, tx pgx.Tx, roles Roles) error {
	powers, err := fingerprint(ctx, tx, sqlSessionRolePowers, []string{roles.Migration, roles.Admin, roles.Maintenance})
	if err != nil {
		return &ReadinessError{Code: CodeUnavailable, Err: err}
	}
	if len(powers) > 0 {
		return &ReadinessError{Code: CodeRoleTooPowerful, Detail: strings.Join(powers, "; ") + "; connect as " + roles.Runtime}
	}
	return nil
}

// readRoleSettings returns the effective per-role settings of our roles in
// this database: a setting made for this database only overrides the one
// made for every database.
func readRoleSettings(ctx context.Context, tx pgx.Tx, roles Roles) (map[string]map[string]string, error) {
	rows, err := tx.Query(ctx, sqlRoleSettings, roleList(roles))
	if err != nil {
		return nil, &ReadinessError{Code: CodeUnavailable, Err: mapErr(err, "reading role settings")}
	}
	out := map[string]map[string]string{}
	var role string
	var inDatabase bool
	var config []string
	_, err = pgx.ForEachRow(rows, []any{&role, &inDatabase, &config}, func() error {
		if out[role] == nil {
			out[role] = map[string]string{}
		}
		// Rows come role-wide first, so this database's values win.
		for _, c := range config {
			if name, value, ok := strings.Cut(c, "="); ok {
				out[role][strings.ToLower(name)] = value
			}
		}
		return nil
	})
	if err != nil {
		return nil, &ReadinessError{Code: CodeUnavailable, Err: mapErr(err, "reading role settings")}
	}
	return out, nil
}

// isSafePath reports a search_path naming exactly the schemas of
// safeSearchPath, in that order.
func isSafePath(path string) bool {
	return slices.Equal(pathSchemas(path), pathSchemas(safeSearchPath))
}

// pathSchemas splits a search_path into its schema names, unquoted.
func pathSchemas(path string) []string {
	var out []string
	for _, part := range strings.Split(path, ",") {
		part = strings.TrimSpace(part)
		if unq, ok := strings.CutPrefix(part, `"`); ok {
			part = strings.ReplaceAll(strings.TrimSuffix(unq, `"`), `""`, `"`)
		} else {
			part = strings.ToLower(part)
		}
		out = append(out, part)
	}
	return out
}

// pgUnits are PostgreSQL's time units; a bare number is in milliseconds
// for the two timeouts checked.
var pgUnits = map[string]time.Duration{
	"": time.Millisecond, "us": time.Microsecond, "ms": time.Millisecond, "s": time.Second,
	"min": time.Minute, "h": time.Hour, "d": 24 * time.Hour,
}

// parsePGDuration reads a time setting as PostgreSQL stores it in a role
// setting: a number, optionally fractional, and an optional unit.
func parsePGDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' && r != '-' && r != '+' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	n, err := strconv.ParseFloat(num, 64)
	scale, ok := pgUnits[unit]
	if err != nil || !ok {
		return 0, fmt.Errorf("time setting %q: want a number with an optional unit (us, ms, s, min, h, d)", s)
	}
	return time.Duration(n * float64(scale)), nil
}
