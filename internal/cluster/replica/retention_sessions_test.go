package replica

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// With every retention setting off, a replica given the maintenance
// role's URL still deletes the console sessions past their expiry on the
// database's clock, without a sign-in or the session being presented, and
// leaves a live one.
func TestAReplicaWithEveryRetentionSettingOffStillDeletesExpiredSessions(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	for i, expiresIn := range []time.Duration{-time.Hour, time.Hour} {
		digest := make([]byte, 32)
		digest[0] = byte(i + 1)
		env.Exec(t, `INSERT INTO qinglong.console_sessions (digest, principal, token_digest, name, scope, created_at_ms, last_seen_at_ms, expires_at_ms)
			SELECT $1, 'token:scraper', $1, 'scraper', 'read', n - 7200000, n - 7200000, n + $2
			  FROM (SELECT `+pgstore.ClockMsSQL+` AS n) c`, digest, expiresIn.Milliseconds())
	}
	f := retentionReplicaFlags(env, "replica-sessions")
	f.Retention = retention.Settings{Runs: "off", Logs: "off", LogBytes: "off", Notifications: "off"}
	retainingReplicaWith(t, f)
	eventually(t, 30*time.Second, "the expired session deleted", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.console_sessions WHERE digest = $1`, append([]byte{1}, make([]byte, 31)...)) == 0
	})
	if n := env.Int(t, `SELECT count(*) FROM qinglong.console_sessions`); n != 1 {
		t.Fatalf("%d sessions left; want the live one", n)
	}
}
