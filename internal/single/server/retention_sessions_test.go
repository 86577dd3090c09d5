package server

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/retention"
)

// With every retention setting off, a server's retention loop still
// deletes the console sessions past their expiry, without a sign-in or
// the session being presented, and leaves a live one.
func TestAServerWithEveryRetentionSettingOffStillDeletesExpiredSessions(t *testing.T) {
	t.Parallel()
	dataDir := installedDir(t)
	rw, err := sql.Open("sqlite", LayoutOf(dataDir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	for i, expires := range []int64{now - time.Hour.Milliseconds(), now + time.Hour.Milliseconds()} {
		digest := make([]byte, 32)
		digest[0] = byte(i + 1)
		if _, err := rw.Exec(`INSERT INTO console_sessions (digest, principal, user_id, password_stamp, name, scope, created_at_ms, last_seen_at_ms, expires_at_ms)
			VALUES (?, ?, ?, 'stamp', 'alice', 'read', ?, ?, ?)`, digest, "user:alice", "alice", expires-2*time.Hour.Milliseconds(), expires-2*time.Hour.Milliseconds(), expires); err != nil {
			t.Fatal(err)
		}
	}
	rw.Close()
	srv, err := Start(t.Context(), Config{DataDir: dataDir, Cadence: 250 * time.Millisecond, StopTimeout: testStopTimeout,
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Retention: RetentionConfig{Set: true, Policy: retention.Policy{}, Cadence: 250 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background()) //nolint:errcheck // the test's end stops it
	db := observer(t, dataDir)
	waitFor(t, "the expired session deleted", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM console_sessions WHERE expires_at_ms < ?`, now) == 0
	})
	if n := count(t, db, `SELECT count(*) FROM console_sessions`); n != 1 {
		t.Fatalf("%d sessions left; want the live one", n)
	}
}
