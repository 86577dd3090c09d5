package server

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// lastErrorCells are the last-error cells of a notifications page in
// lang, by notification id, as the page's markup holds them.
func (s *toldSite) lastErrorCells(t *testing.T, lang string) map[string]string {
	t.Helper()
	c := consoleClient(t)
	s.signIn(t, c, s.tokens[apitoken.Read])
	resp, page := httpcall.Form(t, c, http.MethodGet, s.base+"/notifications?state=dead&lang="+lang, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s page: %d\n%s", lang, resp.StatusCode, page)
	}
	out := map[string]string{}
	rows := regexp.MustCompile(`(?s)<tr id="notification-([0-9a-f-]{36})">.*?<td data-label="[^"]*" class="last-error">(.*?)</td>`)
	for _, m := range rows.FindAllStringSubmatch(page, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// The Chinese notifications page says in Chinese why a dead notification
// failed, from the reason its row keeps, with the row's own English text
// folded behind 详情 (it names the channel and quotes the receiver,
// escaped); a row an older build failed, which keeps no reason, says in
// Chinese that it was not delivered, its text folded the same way.
func TestTheChineseNotificationsPageSaysWhyANotificationFailedInChineseWithItsDetail(t *testing.T) {
	t.Parallel()
	s := startToldSite(t, 1)
	dead := s.list(t, "?state=dead").Notifications[0]
	s.copyDead(t, 1)
	cells := s.lastErrorCells(t, "zh")
	if len(cells) != 2 {
		t.Fatalf("the Chinese page shows %d dead notifications, want 2: %v", len(cells), cells)
	}
	for id, cell := range cells {
		text := html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(cell, ""))
		if id == dead.ID {
			if !strings.Contains(cell, `<span class="error-why">接收方返回了错误状态码</span>`) || !strings.HasSuffix(text, "详情"+dead.LastError) || !strings.Contains(cell, `<details class="error-detail"><summary>详情</summary>`) ||
				!strings.Contains(cell, "&lt;b&gt;down&lt;/b&gt;") {
				t.Errorf("the dead notification's error on the Chinese page: %q; want the Chinese sentence of receiver_status, then %q folded behind 详情, escaped", cell, dead.LastError)
			}
			continue
		}
		if text != "发送失败（原文见详情）详情"+dead.LastError || !strings.Contains(cell, `<details class="error-detail">`) {
			t.Errorf("a dead notification with no reason on the Chinese page: %q; want 发送失败 and its text %q folded behind 详情", cell, dead.LastError)
		}
	}
}

// The English notifications page shows a dead notification's English
// text as it is kept, whole, behind Details under a short headline of its
// reason, and nothing in Chinese.
func TestTheEnglishNotificationsPageShowsAFailuresEnglishText(t *testing.T) {
	t.Parallel()
	s := startToldSite(t, 1)
	dead := s.list(t, "?state=dead").Notifications[0]
	cell := s.lastErrorCells(t, "en")[dead.ID]
	text := html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(cell, ""))
	if !strings.Contains(dead.LastError, "channel down: the receiver answered 503") || text != "The receiver answered with an error statusDetails"+dead.LastError ||
		strings.ContainsFunc(cell, func(r rune) bool { return r >= 0x4e00 && r <= 0x9fff }) {
		t.Errorf("the dead notification's error on the English page: %q; want the headline of receiver_status and its English text %q", cell, dead.LastError)
	}
}
