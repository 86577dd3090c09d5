package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A failed Run's notification goes out when the Run ends, and its retry
// when its backoff ends, however long the server's cadence: with an hour's
// cadence, a refused first attempt is retried and delivered within the
// test's limit only if the Run's end (through the commit watch) and the
// backoff's end (a second, past the watch's wake for the failure's own
// commit) both woke the notifications.
func TestANotificationGoesOutWhenItsRunEndsAndIsRetriedWhenItsBackoffEnds(t *testing.T) {
	var calls atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(hook.Close)
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, slowScript,
		func(c *Config) {
			c.Cadence = time.Hour
			c.NotifyBackoff = time.Second
			c.NotifyMaxAttempts = 3
		})
	tg := site.applyOverAPI(t, []byte(toldFile("woken", hook.URL, "hook")), "woken")
	site.runNowOverAPI(t, tg.TriggerID)
	waitFor(t, "the notification to be refused once and then delivered", 30*time.Second, func() bool {
		return calls.Load() >= 2
	})
	var delivered view.NotificationList
	waitFor(t, "the outbox to record the delivery", 30*time.Second, func() bool {
		st, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/notifications?state=delivered", site.tokens[apitoken.Read], nil)
		if err := json.Unmarshal(body, &delivered); st != http.StatusOK || err != nil {
			t.Fatalf("notifications: %d %s", st, body)
		}
		return len(delivered.Notifications) == 1
	})
	if n := delivered.Notifications[0]; n.Attempts != 2 {
		t.Errorf("the notification was delivered at attempt %d, want 2 (one refusal, one retry)", n.Attempts)
	}
}
