package notify

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// received sends m through the deliverer to an httptest server and
// returns the body the server read.
func received(t *testing.T, m Message) []byte {
	t.Helper()
	bodies := make(chan []byte, 1)
	answer := `{"errcode": 0, "code": 0}`
	if m.Channel.Kind == PushPlus {
		answer = `{"code": 200}`
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- b
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(answer))
	}))
	defer srv.Close()
	m.Channel.URL = srv.URL + "/hook"
	if _, err := NewDeliverer(DeliveryConfig{Client: srv.Client()}).send(t.Context(), m); err != nil {
		t.Fatalf("%s: %v", m.Channel.Kind, err)
	}
	return <-bodies
}

// chinese is sample's notification to a channel of kind that asks for
// Chinese in Shanghai's time.
func chinese(kind Kind) Message {
	m := sample(Channel{Name: "phone", Kind: kind, Language: Chinese, TimeZone: "Asia/Shanghai"})
	m.Payload.Origin = "clock"
	return m
}

// A channel with language zh and a zone gets its title and detail lines
// in Chinese and its times in the zone, with its offset, on every chat
// kind that QingLong posts over HTTP.
func TestAChannelInChineseWithAZoneGetsChineseTextAndLocalTimes(t *testing.T) {
	for _, kind := range []Kind{Bark, DingTalk, WeCom, Telegram, Feishu, Slack, Ntfy, Gotify, PushPlus} {
		body := string(received(t, chinese(kind)))
		if kind != Ntfy {
			var decoded any
			if err := json.Unmarshal([]byte(body), &decoded); err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			flat, _ := json.Marshal(decoded)
			body = strings.ReplaceAll(string(flat), `\n`, "\n")
		}
		wants := []string{"状态：失败", "计划时间：2026-11-30 10:00:00 +08:00", "结束时间：2026-11-30 10:00:03 +08:00",
			"来源：定时触发", "任务：backup", "输出（最后 2 行）："}
		if kind != Ntfy {
			wants = append(wants, "连续失败 3 次")
		}
		for _, want := range wants {
			if !strings.Contains(body, want) {
				t.Errorf("%s: the body %s does not say %q", kind, body, want)
			}
		}
		if strings.Contains(body, "state:") || strings.Contains(body, "2026-11-30T02:00:00Z") {
			t.Errorf("%s: the body %s still holds English lines or UTC times", kind, body)
		}
	}
	if title := chinese(Ntfy).Channel.wording().title(chinese(Ntfy).Payload); title != "青龙：shop/nightly-backup 连续失败 3 次" {
		t.Errorf("the title is %q", title)
	}
}

// A webhook channel in Chinese with a zone keeps every machine field of
// its payload as it was (names, state values, RFC 3339 times) and adds
// the human title and text beside them; one naming neither sends the
// payload alone.
func TestAWebhookInChineseKeepsItsMachineFieldsAndAddsTheText(t *testing.T) {
	plain := map[string]any{}
	if err := json.Unmarshal(received(t, sample(Channel{Name: "hook", Kind: Webhook})), &plain); err != nil {
		t.Fatal(err)
	}
	if _, ok := plain["title"]; ok {
		t.Fatalf("a webhook naming no language carries a title: %v", plain)
	}
	zh := map[string]any{}
	if err := json.Unmarshal(received(t, chinese(Webhook)), &zh); err != nil {
		t.Fatal(err)
	}
	for k, v := range plain {
		if k == "origin" {
			continue
		}
		if got, _ := json.Marshal(zh[k]); string(got) != mustJSON(v) {
			t.Errorf("the machine field %s is %s, want %s as without a language", k, got, mustJSON(v))
		}
	}
	if zh["runState"] != "failed" || zh["scheduledFor"] != "2026-11-30T02:00:00Z" || zh["origin"] != "clock" {
		t.Errorf("the machine fields changed: %v", zh)
	}
	if zh["title"] != "青龙：shop/nightly-backup 连续失败 3 次" || !strings.Contains(zh["text"].(string), "计划时间：2026-11-30 10:00:00 +08:00") {
		t.Errorf("the human fields are %q and %q", zh["title"], zh["text"])
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// An email in Chinese has a Chinese subject and local times in its text.
func TestAnEmailInChineseHasAChineseSubjectAndLocalTimes(t *testing.T) {
	m := chinese(Email)
	m.Channel.From, m.Channel.To = "ql@example.com", []string{"ops@example.com"}
	mail, err := BuildMail(m, sentAt)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mail.Message), "Subject: =?utf-8?b?") || strings.Contains(string(mail.Message), "Subject: QingLong") {
		t.Fatalf("the subject is not the Chinese title:\n%s", mail.Message)
	}
	if !strings.Contains(m.Channel.wording().text(m.Payload), "结束时间：2026-11-30 10:00:03 +08:00") {
		t.Fatal("the mail's text has no local time")
	}
}

// A language other than en and zh, and a zone that is no IANA zone, are
// refused naming the field and saying what to write.
func TestABadChannelLanguageOrZoneIsRefusedWithAReason(t *testing.T) {
	for _, tc := range []struct {
		c      Channel
		reason qlerror.Reason
		says   string
	}{
		{Channel{Name: "p", Kind: Bark, URL: "https://api.day.app/k", Language: "cn"}, validate.RefusalNotOneOf, "notifications.channels.p.language: \"cn\" is not one of en, zh"},
		{Channel{Name: "p", Kind: Bark, URL: "https://api.day.app/k", TimeZone: "Asia/Shanghia"}, cron.RefusalTimezoneUnknown, "notifications.channels.p.timeZone"},
		{Channel{Name: "p", Kind: Bark, URL: "https://api.day.app/k", TimeZone: "asia/shanghai"}, cron.RefusalTimezoneCase, "Asia/Shanghai"},
		{Channel{Name: "p", Kind: Bark, URL: "https://api.day.app/k", TimeZone: "Local"}, cron.RefusalTimezoneLocal, "timeZone"},
	} {
		err := tc.c.Validate()
		var qe *qlerror.Error
		if !errors.As(err, &qe) || qe.Reason != tc.reason || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%+v: %v, want reason %s saying %q", tc.c, err, tc.reason, tc.says)
		}
	}
	ok := Channel{Name: "p", Kind: Bark, URL: "https://api.day.app/k", Language: English, TimeZone: "Asia/Shanghai"}
	if err := ok.Validate(); err != nil {
		t.Fatalf("en with Asia/Shanghai: %v", err)
	}
}

func TestEveryEventATitleNamesHasItsChineseWords(t *testing.T) {
	for e := range verbs {
		if zhVerbs[e] == "" {
			t.Errorf("event %q has English title words %q and no Chinese ones", e, verbs[e])
		}
	}
	got := Channel{Language: "zh"}.wording().title(Payload{Event: OnTest, Project: "shop"})
	if got != "青龙：shop 测试消息：渠道可用（没有对应的运行）" {
		t.Fatalf("a Chinese channel's test message is titled %q", got)
	}
}

// A channel's zone that is refused names the channel's field, as the
// definitions file has it, and never calls it a cron timezone: the zone
// is no trigger's.
func TestARefusedChannelZoneNamesTheChannelsFieldNotACronTimezone(t *testing.T) {
	for _, zone := range []string{"Asia/Shanghia", "asia/shanghai", "Local"} {
		err := Spec{Channels: []Channel{{Name: "ops", Kind: Bark, URL: "https://api.day.app/k", TimeZone: zone}}}.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), "notifications.channels.ops.timeZone "+strconv.Quote(zone)+": ") || strings.Contains(err.Error(), "cron") {
			t.Errorf("timeZone %q: %v; want the refusal to begin with notifications.channels.ops.timeZone and the zone, without \"cron\"", zone, err)
		}
	}
}
