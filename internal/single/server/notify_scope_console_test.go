package server

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The console's Notifications page says what each notification's rule
// covers, as ql notifications list's SCOPE does, in English and Chinese:
// two rules of one event and channel differ only in it. A rule changed
// since is said to be so.
func TestTheConsoleNotificationsPageSaysWhatEachRuleCovers(t *testing.T) {
	t.Parallel()
	s := startToldSite(t, 1)
	first := s.list(t, "")
	// The ok channel's rule is narrowed to the trigger yearly: its earlier
	// notification's rule is no longer the project's, and the next
	// failure's is the narrowed one.
	narrowed := strings.Replace(toldFile("told", s.hook.URL, "down", "ok"), "{on: failed, channel: ok}", "{on: failed, channel: ok, triggers: [yearly]}", 1)
	s.runNowOverAPI(t, s.applyOverAPI(t, []byte(narrowed), "told").TriggerID)
	var all view.NotificationList
	waitFor(t, "the second failure's notifications to be dead or delivered", 30*time.Second, func() bool {
		all = s.list(t, "")
		return len(all.Notifications) == 4 && len(s.list(t, "?state=pending").Notifications) == 0
	})
	want := map[string][2]string{} // id → English, Chinese
	for _, n := range all.Notifications {
		earlier := n.ID == first.Notifications[0].ID || n.ID == first.Notifications[1].ID
		switch {
		case n.Channel == "down":
			want[n.ID] = [2]string{"for all of project told", "适用于整个项目 told"}
		case earlier:
			want[n.ID] = [2]string{"a rule changed or removed since", "该规则此后已更改或删除"}
		default:
			want[n.ID] = [2]string{"triggers yearly", "触发器 yearly"}
		}
	}
	for i, lang := range []string{"en", "zh"} {
		c := consoleClient(t)
		s.signIn(t, c, s.tokens[apitoken.Read])
		resp, page := httpcall.Form(t, c, http.MethodGet, s.base+"/notifications?lang="+lang, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s page: %d\n%s", lang, resp.StatusCode, page)
		}
		for id, w := range want {
			row := regexp.MustCompile(`(?s)<tr id="notification-` + id + `">.*?</tr>`).FindString(page)
			scope := regexp.MustCompile(`<small class="rule-scope">([^<]*)</small>`).FindStringSubmatch(row)
			if scope == nil || html.UnescapeString(scope[1]) != w[i] {
				t.Errorf("%s: notification %s's rule says %q; want %q\n%s", lang, id, scope, w[i], row)
			}
		}
	}
}
