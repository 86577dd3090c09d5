package singlecli

import (
	"context"
	"encoding/json"
	"net/http"
	"os/user"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// A notification retried with `ql notifications retry` on the database
// records the system user who asked, which `ql notifications list` shows
// beside when (text and JSON); brought forward to its creation time, its
// next attempt reads "due now" (JSON: dueNow beside the stored time), not
// a time in the past.
func TestTheNotificationListSaysWhoRetriedANotificationAndThatItIsDueNow(t *testing.T) {
	t.Parallel()
	me, err := user.Current()
	if err != nil || me.Username == "" {
		t.Fatalf("no system user name to expect as who retried: %v", err)
	}
	r := newReceiver(t, func(string, int) int { return http.StatusServiceUnavailable })
	dir, db := notifyDataDir(t, failingDefs(r.srv.URL, "down"))
	ctx, cancel := context.WithCancel(context.Background())
	var errOut syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main(ctx, Options("ql"), []string{"serve", "--data-dir", dir, "--cadence", "250ms", "--stop-timeout", testStopTimeout,
			"--notify-max-attempts", "1"}, &syncBuffer{}, &errOut)
	}()
	runFailing(t, dir)
	outboxState(t, db, "dead", 1, 30*time.Second)
	// Stopped, the server cannot send the retried notification before it
	// is listed.
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	code, out, stderr := ql(t, "notifications", "list", "--state", "dead", "-o", "json", "--data-dir", dir)
	var page struct {
		Notifications []struct {
			ID, RetriedBy   string
			NextAttemptAtMs *int64
			CreatedAtMs     int64
			DueNow          bool
		}
	}
	if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil || len(page.Notifications) != 1 {
		t.Fatalf("dead notifications: %d %q %q (%v); want one", code, out, stderr, err)
	}
	id := page.Notifications[0].ID
	if code, out, stderr := ql(t, "notifications", "retry", id, "--data-dir", dir); code != 0 {
		t.Fatalf("notifications retry: %d %q %q", code, out, stderr)
	}
	code, out, stderr = ql(t, "notifications", "list", "--state", "pending", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "NEXT ATTEMPT") || !strings.Contains(out, "1 (1 before a retry by hand by "+me.Username+" at 20") ||
		!strings.Contains(out, "due now") {
		t.Fatalf("notifications list after the retry: %d %q %q; want who retried it, %q, and its next attempt due now", code, out, stderr, me.Username)
	}
	code, out, stderr = ql(t, "notifications", "list", "--state", "pending", "-o", "json", "--data-dir", dir)
	page.Notifications = nil
	if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil || len(page.Notifications) != 1 {
		t.Fatalf("pending notifications: %d %q %q (%v); want one", code, out, stderr, err)
	}
	if n := page.Notifications[0]; n.RetriedBy != me.Username || !n.DueNow || n.NextAttemptAtMs == nil || *n.NextAttemptAtMs != n.CreatedAtMs {
		t.Fatalf("the retried notification in JSON: %+v; want retriedBy %q, dueNow, and nextAttemptAtMs its creation as stored", n, me.Username)
	}
}
