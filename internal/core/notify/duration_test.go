package notify

import (
	"bytes"
	"net/mail"
	"strings"
	"testing"
	"time"
)

// A Chinese channel says how long a Run took in Chinese units, a part of
// none left out; an English one keeps Go's form.
func TestAChineseChannelSaysHowLongARunTookInChineseUnits(t *testing.T) {
	zh, en := Channel{Language: Chinese}.wording(), Channel{}.wording()
	for _, tc := range []struct {
		d      time.Duration
		zh, en string
	}{
		{62500 * time.Millisecond, "1分2.5秒", "1m2.5s"},
		{3*time.Hour + 5*time.Minute, "3小时5分", "3h5m0s"},
		{time.Hour + 5*time.Second, "1小时5秒", "1h0m5s"},
		{3250 * time.Millisecond, "3.25秒", "3.25s"},
		{500 * time.Millisecond, "500毫秒", "500ms"},
		{0, "0毫秒", "0s"},
	} {
		if got := zh.took(tc.d); got != tc.zh {
			t.Errorf("%v in Chinese: %q, want %q", tc.d, got, tc.zh)
		}
		if got := en.took(tc.d); got != tc.en {
			t.Errorf("%v in English: %q, want %q", tc.d, got, tc.en)
		}
	}
	took := int64(62500)
	p := Payload{Event: OnFailed, Project: "shop", RunState: "failed", DurationMs: &took}
	if text := zh.details(p); !strings.Contains(text, "耗时：1分2.5秒") {
		t.Errorf("a Chinese channel's detail lines:\n%s\nwant 耗时：1分2.5秒", text)
	}
	if text := en.details(p); !strings.Contains(text, "took: 1m2.5s") {
		t.Errorf("an English channel's detail lines:\n%s\nwant took: 1m2.5s", text)
	}
}

// An email's Date header is an RFC 5322 date in the channel's zone, with
// its offset, where the channel names one, and in UTC otherwise; both
// name the same instant, when the notification was created.
func TestAnEmailsDateIsInTheChannelsZone(t *testing.T) {
	c, _ := goldenChannel(Email)
	for zone, want := range map[string]string{"Asia/Shanghai": "Mon, 30 Nov 2026 10:00:00 +0800", "": "Mon, 30 Nov 2026 02:00:00 +0000"} {
		c.TimeZone = zone
		m, err := BuildMail(sample(c), sentAt)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := mail.ReadMessage(bytes.NewReader(m.Message))
		if err != nil {
			t.Fatal(err)
		}
		date, err := msg.Header.Date()
		if msg.Header.Get("Date") != want || err != nil || !date.Equal(sentAt) {
			t.Errorf("zone %q: Date %q (%v, %v); want %q, an RFC 5322 date of %v", zone, msg.Header.Get("Date"), date, err, want, sentAt)
		}
	}
}

// A lost Run's time, counted only until its worker was last heard from,
// is said as a lower bound in both languages.
func TestALostRunsTimeIsSaidAsALowerBound(t *testing.T) {
	zh, en := Channel{Language: Chinese}.wording(), Channel{}.wording()
	took := int64(9)
	p := Payload{Event: OnLost, Project: "shop", RunState: "lost", DurationMs: &took, DurationIsLowerBound: true}
	if text := zh.details(p); !strings.Contains(text, "耗时：至少 9毫秒（至最后一次联系）") {
		t.Errorf("a Chinese channel's detail lines:\n%s\nwant 耗时：至少 9毫秒（至最后一次联系）", text)
	}
	if text := en.details(p); !strings.Contains(text, "took: ≥ 9ms (until last heard from)") {
		t.Errorf("an English channel's detail lines:\n%s\nwant took: ≥ 9ms (until last heard from)", text)
	}
}
