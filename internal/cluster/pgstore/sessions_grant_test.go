package pgstore

import "testing"

// The admin role deletes a user's or a token's console sessions by their
// principal (`ql users passwd|disable|delete`, `ql tokens revoke`), and the
// maintenance role expired ones by their expiry (the retention pass); each
// reads only the columns its delete names and writes nothing else there.
func TestTheAdminAndMaintenanceRolesDeleteConsoleSessionsAndReadOnlyWhatTheirDeleteNames(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	allowed := map[RoleKind][]string{
		RoleAdmin: {"DELETE FROM qinglong.console_sessions WHERE principal = 'user:x'"},
		RoleMaintenance: {`DELETE FROM qinglong.console_sessions WHERE digest IN
			(SELECT digest FROM qinglong.console_sessions WHERE expires_at_ms <= 0 ORDER BY expires_at_ms LIMIT 1)`},
	}
	denied := map[RoleKind][]string{
		RoleAdmin: {
			"SELECT password_stamp FROM qinglong.console_sessions", "DELETE FROM qinglong.console_sessions WHERE expires_at_ms <= 0",
			"UPDATE qinglong.console_sessions SET expires_at_ms = expires_at_ms WHERE false",
			"INSERT INTO qinglong.console_sessions (digest) SELECT NULL WHERE false",
		},
		RoleMaintenance: {
			"SELECT principal FROM qinglong.console_sessions", "DELETE FROM qinglong.console_sessions WHERE principal = 'user:x'",
			"UPDATE qinglong.console_sessions SET expires_at_ms = expires_at_ms WHERE false",
			"SELECT digest FROM qinglong.console_sessions FOR UPDATE SKIP LOCKED",
		},
	}
	for k, qs := range allowed {
		for _, q := range qs {
			if _, err := e.conn(t, k).Exec(t.Context(), q); err != nil {
				t.Errorf("%s %q: %v, want allowed", k, q, err)
			}
		}
	}
	for k, qs := range denied {
		for _, q := range qs {
			if _, err := e.conn(t, k).Exec(t.Context(), q); sqlState(err) != stateInsufficientPriv {
				t.Errorf("%s %q: %v, want permission denied", k, q, err)
			}
		}
	}
}
