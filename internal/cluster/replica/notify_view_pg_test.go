package replica

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// On the cluster a replica, as the runtime role, lists the outbox over the
// API and on the console's Notifications page, and retries a dead
// notification for an operate token, logging who asked: the notification
// is sent again, under its key, and delivered.
func TestAReplicaListsAndRetriesADeadNotification(t *testing.T) {
	t.Parallel()
	var accept atomic.Bool
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if !accept.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(recv.Close)
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, fmt.Sprintf(skippedAlertsDefs, recv.URL+"/hook"))
	admin := []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleAdmin)}
	token := func(name, scope string) string {
		t.Helper()
		code, out := runQL(t, bin, admin, "tokens", "create", name, "--scope", scope)
		if code != 0 {
			t.Fatalf("tokens create %s: exit %d %q", name, code, out)
		}
		return strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	}
	reader, operator := token("reader", "read"), token("ops", "operate")
	r := startReplica(t, bin, env, "replica-notify-view", "--notify-loopback", "--notify-max-attempts", "1")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	eventually(t, 30*time.Second, "the replica to initialise the schedule", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.trigger_schedules WHERE next_fire_at_ms IS NOT NULL`) == 1
	})
	env.MakeDue(t, 5*60_000)
	var dead view.NotificationList
	eventually(t, 30*time.Second, "a skipped notification to be dead", func() bool {
		st, body, _ := httpcall.Bearer(t, http.MethodGet, base+"/api/v1/notifications?state=dead", reader, nil)
		return st == http.StatusOK && json.Unmarshal(body, &dead) == nil && len(dead.Notifications) > 0
	})
	n := dead.Notifications[0]
	if n.Event != string(notify.OnSkipped) || n.Project != "alerts" || n.Channel != "hook" || n.Attempts != 1 || !strings.Contains(n.LastError, "503") {
		t.Fatalf("dead notification %+v: want alerts' skipped one, refused once", n)
	}

	// The admin role may read the outbox but not write it: a retry given
	// its URL says which role to use, with the wrong role's exit code.
	if code, out := runQL(t, bin, admin, "notifications", "retry", n.ID); code != 5 || !strings.Contains(out, "retrying notifications needs the runtime role's URL") {
		t.Fatalf("notifications retry with the admin role's URL: exit %d %q; want 5 naming the runtime role", code, out)
	}

	c, get := consoleBrowser(t, base)
	if resp := consoleSignIn(t, c, get, base, url.Values{"token": {operator}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	resp, page := get("/notifications?state=dead")
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="notification-`+n.ID+`"`) || !strings.Contains(page, `action="/notifications/`+n.ID+`/retry"`) ||
		!strings.Contains(page, "occurrences passed over — later than the grace period") {
		t.Fatalf("the replica's notifications page: %d, want the dead notification, its rule and Retry:\n%s", resp.StatusCode, page)
	}

	accept.Store(true)
	st, body, _ := httpcall.Bearer(t, http.MethodPost, base+"/api/v1/notifications/"+n.ID+"/retry", operator, nil)
	var retried struct{ Notification view.Notification }
	if err := json.Unmarshal(body, &retried); st != http.StatusOK || err != nil || retried.Notification.State != "pending" {
		t.Fatalf("retry: %d %s; want the notification pending", st, body)
	}
	if rec := r.await(t, notify.CodeRetried, 10*time.Second); rec["notification"] != n.ID || rec["actor"] != "api:ops@127.0.0.1" {
		t.Fatalf("the retry's log line %v: want the notification and who asked", rec)
	}
	eventually(t, 30*time.Second, "the retried notification to be delivered", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.notification_outbox WHERE id = '`+n.ID+`' AND state = 'delivered'`) == 1
	})
}
