package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/shellquote"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// unsetFile is a project whose failures go to a webhook signed with a
// secret the secrets file never defines, under the receiver %[1]s.
const unsetFile = `project: unset
notifications:
  channels:
    signed: {type: webhook, url: "%[1]s/hook", signingSecret: never_set}
  rules:
    - {on: failed, channel: signed}
tasks:
  - name: fails
    script: exit 3
triggers:
  - name: yearly
    task: fails
    cron: "0 0 1 1 *"
    timezone: UTC
`

// A notification whose channel names a secret the secrets file does not
// define is not sent, and its last error is the command that sets that
// secret in this server's data directory, as it can be pasted: without
// --data-dir it would set it where the server does not read it.
func TestANotificationWhoseSecretIsMissingSaysTheCommandThatSetsIt(t *testing.T) {
	t.Parallel()
	var received atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { received.Add(1) }))
	t.Cleanup(hook.Close)
	s := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, slowScript,
		func(c *Config) { c.NotifyMaxAttempts = 1 })
	s.runNowOverAPI(t, s.applyOverAPI(t, fmt.Appendf(nil, unsetFile, hook.URL), "unset").TriggerID)
	var dead view.NotificationList
	waitFor(t, "the notification to be dead", 30*time.Second, func() bool {
		st, body, _ := httpcall.Bearer(t, http.MethodGet, s.base+"/api/v1/notifications?state=dead", s.tokens[apitoken.Read], nil)
		if err := json.Unmarshal(body, &dead); st != http.StatusOK || err != nil {
			t.Fatalf("notifications: %d %s", st, body)
		}
		return len(dead.Notifications) == 1
	})
	want := "set it with `ql secrets set never_set --data-dir " + shellquote.Quote(s.dir) + "`"
	if got := dead.Notifications[0].LastError; !strings.Contains(got, `secret "never_set" is not defined`) || !strings.Contains(got, want) {
		t.Errorf("last error %q; want it to name the secret and say %q", got, want)
	}
	if n := received.Load(); n != 0 {
		t.Errorf("the receiver got %d requests; want none, the body cannot be signed", n)
	}
}
