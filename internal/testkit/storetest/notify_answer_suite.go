package storetest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/run"
)

// testRefusalTextIsRecordedEscaped: what a refusing receiver said is kept
// on the row escaped and cut at a character, so an answer whose read limit
// falls inside a Chinese character, or one carrying NULs and terminal
// escapes, is recorded like any other. PostgreSQL refuses such text: the
// failure was never recorded, and the row, claimed again after each lease,
// was never made dead.
func testRefusalTextIsRecordedEscaped(t *testing.T, f Fixture) {
	// 6 control bytes and 193 others, then a three-byte character: the
	// 200 bytes quoted end inside it.
	answer := "\x00\x1b[31m" + strings.Repeat("x", 193) + "服务暂时不可用"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	m := deliverOnce(t, f, "escaped", notify.Channel{Name: "cn", Kind: notify.Webhook, URL: srv.URL}, notify.DeliveryConfig{})
	if m.State != notify.Pending || m.Attempts != 1 {
		t.Fatalf("notification %s after %d attempts, want pending after its first failed one", m.State, m.Attempts)
	}
	if !utf8.ValidString(m.LastError) || strings.ContainsFunc(m.LastError, unicode.IsControl) ||
		!strings.Contains(m.LastError, `502: "\x00\x1b[31mxxx`) {
		t.Fatalf("reason %q: want the receiver's status and its answer escaped, in UTF-8", m.LastError)
	}
}

// testChatRefusalsAreFailures: DingTalk, WeCom and Feishu answer 200 to a
// message they refuse, with the refusal's code in the body; such an answer
// is a failed attempt whose reason names the service, its code and its
// message, and so is a 200 without the service's acknowledgement. Only a
// code of 0, in the current or (Feishu) the older fields, delivers. Taken
// for delivered, the refusals of a wrong keyword, signature or token lost
// every notification without a trace.
func testChatRefusalsAreFailures(t *testing.T, f Fixture) {
	cases := []struct {
		name   string
		kind   notify.Kind
		answer string
		// reason is what the reason must hold; "" is delivered.
		reason string
	}{
		{"dingtalk-ok", notify.DingTalk, `{"errcode":0,"errmsg":"ok"}`, ""},
		{"dingtalk-sign", notify.DingTalk, `{"errcode":310000,"errmsg":"sign not match"}`,
			`channel dingtalk-sign: DingTalk refused the notification: errcode 310000, "sign not match"`},
		{"dingtalk-keyword", notify.DingTalk, `{"errcode":310000,"errmsg":"keywords not in content"}`, `errcode 310000, "keywords not in content"`},
		{"wecom-ok", notify.WeCom, `{"errcode":0,"errmsg":"ok"}`, ""},
		{"wecom-key", notify.WeCom, `{"errcode":93000,"errmsg":"invalid webhook url"}`,
			`channel wecom-key: WeCom refused the notification: errcode 93000, "invalid webhook url"`},
		{"wecom-escaped", notify.WeCom, `{"errcode":45009,"errmsg":"接口调用超过限制\u0007"}`, `errcode 45009, "接口调用超过限制\a"`},
		{"feishu-ok", notify.Feishu, `{"code":0,"msg":"success","data":{},"Extra":null,"StatusCode":0,"StatusMessage":"success"}`, ""},
		{"feishu-older-ok", notify.Feishu, `{"Extra":null,"StatusCode":0,"StatusMessage":"success"}`, ""},
		{"feishu-sign", notify.Feishu, `{"code":19021,"data":{},"msg":"sign match fail or timestamp is not within one hour from current time"}`,
			`Feishu refused the notification: code 19021, "sign match fail or timestamp is not within one hour from current time"`},
		{"feishu-older-keyword", notify.Feishu, `{"Extra":null,"StatusCode":19024,"StatusMessage":"Key Words Not Found"}`,
			`Feishu refused the notification: StatusCode 19024, "Key Words Not Found"`},
		{"dingtalk-page", notify.DingTalk, `<html>sign in to the proxy</html>`,
			`the receiver answered 200 without DingTalk's acknowledgement (a JSON object with errcode 0): "<html>sign in to the proxy</html>"`},
		{"feishu-empty", notify.Feishu, ``, `the receiver answered 200 without Feishu's acknowledgement (a JSON object with code 0) with an empty body`},
		{"wecom-other", notify.WeCom, `{"ok":true}`, `without WeCom's acknowledgement`},
		{"wecom-null", notify.WeCom, `{"errcode":null}`, `without WeCom's acknowledgement`},
	}
	answers := make(map[string]string, len(cases))
	for _, tc := range cases {
		answers["/"+tc.name] = tc.answer
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answers[r.URL.Path])
	}))
	t.Cleanup(srv.Close)
	for _, tc := range cases {
		m := deliverOnce(t, f, tc.name, notify.Channel{Name: tc.name, Kind: tc.kind, URL: srv.URL + "/" + tc.name}, notify.DeliveryConfig{})
		switch {
		case tc.reason == "" && m.State != notify.Delivered:
			t.Errorf("%s answering %s: the notification is %s (%q), want delivered", tc.kind, tc.answer, m.State, m.LastError)
		case tc.reason != "" && (m.State != notify.Pending || m.Attempts != 1 || !strings.Contains(m.LastError, tc.reason)):
			t.Errorf("%s answering %s: the notification is %s after %d attempts with reason %q; want pending, to be retried, with a reason holding %q",
				tc.kind, tc.answer, m.State, m.Attempts, m.LastError, tc.reason)
		}
	}

	// The last allowed attempt refused is dead, as any other failure.
	m := deliverOnce(t, f, "dingtalk-last", notify.Channel{Name: "dingtalk-last", Kind: notify.DingTalk, URL: srv.URL + "/dingtalk-sign"},
		notify.DeliveryConfig{MaxAttempts: 1})
	if m.State != notify.Dead || !strings.Contains(m.LastError, "errcode 310000") {
		t.Errorf("a refusal at the last allowed attempt left the notification %s (%q), want dead", m.State, m.LastError)
	}
}

// testDingTalkAndFeishuSignedModes: a dingtalk or feishu channel with a
// signingSecret is taken by a robot in its signed mode, which checks the
// signature the way the services document it (DingTalk: timestamp in
// milliseconds and sign in the URL; Feishu: timestamp in seconds and sign
// in the body; both within an hour of now); the secrets come from a
// secrets file. Without a signature such a robot refuses every message.
func testDingTalkAndFeishuSignedModes(t *testing.T, f Fixture) {
	const robotSecret = "SECb1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6"
	fresh := func(ts string, unit time.Duration) bool {
		n, err := strconv.ParseInt(ts, 10, 64)
		return err == nil && time.Since(time.UnixMilli(n*int64(unit/time.Millisecond))).Abs() < time.Hour
	}
	sum := func(key, message string) string {
		mac := hmac.New(sha256.New, []byte(key))
		mac.Write([]byte(message))
		return base64.StdEncoding.EncodeToString(mac.Sum(nil))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robot/send":
			q := r.URL.Query()
			ts := q.Get("timestamp")
			if q.Get("access_token") != "t0ken" || !fresh(ts, time.Millisecond) || q.Get("sign") != sum(robotSecret, ts+"\n"+robotSecret) {
				_, _ = io.WriteString(w, `{"errcode":310000,"errmsg":"sign not match"}`)
				return
			}
			_, _ = io.WriteString(w, `{"errcode":0,"errmsg":"ok"}`)
		case "/open-apis/bot/v2/hook/t0ken":
			var body struct{ Timestamp, Sign string }
			if json.NewDecoder(r.Body).Decode(&body) != nil || !fresh(body.Timestamp, time.Second) || body.Sign != sum(body.Timestamp+"\n"+robotSecret, "") {
				_, _ = io.WriteString(w, `{"code":19021,"data":{},"msg":"sign match fail or timestamp is not within one hour from current time"}`)
				return
			}
			_, _ = io.WriteString(w, `{"StatusCode":0,"StatusMessage":"success","code":0,"data":{},"msg":"success"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	cfg := notify.DeliveryConfig{Secrets: secretsFile(t, map[string]string{"ding_url": srv.URL + "/robot/send?access_token=t0ken", "robot_sec": robotSecret,
		"stale_sec": "SECnot-this-robots"})}
	for _, tc := range []struct {
		c      notify.Channel
		reason string
	}{
		{notify.Channel{Name: "ding", Kind: notify.DingTalk, URLSecret: "ding_url", SigningSecret: "robot_sec"}, ""},
		{notify.Channel{Name: "feishu", Kind: notify.Feishu, URL: srv.URL + "/open-apis/bot/v2/hook/t0ken", SigningSecret: "robot_sec"}, ""},
		{notify.Channel{Name: "ding-stale", Kind: notify.DingTalk, URLSecret: "ding_url", SigningSecret: "stale_sec"}, `errcode 310000, "sign not match"`},
		{notify.Channel{Name: "feishu-unsigned", Kind: notify.Feishu, URL: srv.URL + "/open-apis/bot/v2/hook/t0ken"}, "code 19021"},
	} {
		m := deliverOnce(t, f, tc.c.Name, tc.c, cfg)
		switch {
		case tc.reason == "" && m.State != notify.Delivered:
			t.Errorf("channel %s signed by its robot's secret: the notification is %s (%q), want delivered", tc.c.Name, m.State, m.LastError)
		case tc.reason != "" && (m.State != notify.Pending || !strings.Contains(m.LastError, tc.reason)):
			t.Errorf("channel %s: the notification is %s (%q), want pending with a reason holding %q", tc.c.Name, m.State, m.LastError, tc.reason)
		}
		if strings.Contains(m.LastError, robotSecret) || strings.Contains(m.LastError, "t0ken") {
			t.Errorf("channel %s: the reason %q shows a secret", tc.c.Name, m.LastError)
		}
	}
}

// testRedirectsAreReportedNotFollowed: a receiver that redirects fails the
// attempt with a reason saying where it redirected to (without the
// target's user, query or fragment; for a URL from a secret, without its
// path either) and to put that URL in the channel, and the target is sent
// nothing. Followed, a 301 or 302 turned the POST into a GET whose
// target's answer was taken for the receiver's (a page answering 200
// made the notification delivered), and a 307 or 308 posted the body,
// signed, to wherever the receiver named.
func testRedirectsAreReportedNotFollowed(t *testing.T, f Fixture) {
	var reached atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reached.Add(1)
		_, _ = io.WriteString(w, `{"errcode":0,"errmsg":"ok"}`)
	}))
	t.Cleanup(target.Close)
	targetHost := strings.TrimPrefix(target.URL, "http://")
	redirects := map[string]struct {
		status   int
		location string
	}{
		"/moved":                      {http.StatusMovedPermanently, "http://user:pa55@" + targetHost + "/hook?token=t0ken#part"},
		"/found":                      {http.StatusFound, target.URL + "/hook"},
		"/temporary":                  {http.StatusTemporaryRedirect, target.URL + "/hook?token=t0ken"},
		"/permanent":                  {http.StatusPermanentRedirect, target.URL + "/robot/send?access_token=t0ken"},
		"/relative":                   {http.StatusMovedPermanently, "/v2/hook?token=t0ken"},
		"/services/T0/B0/t0ken":       {http.StatusMovedPermanently, target.URL + "/services/T0/B0/t0ken"},
		"/services/T0/B0/t0ken-moved": {http.StatusMovedPermanently, target.URL + "/services/T1/B1/0ther-t0ken"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		to, ok := redirects[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Location", to.location)
		w.WriteHeader(to.status)
	}))
	t.Cleanup(srv.Close)
	cfg := notify.DeliveryConfig{Secrets: secretsFile(t, map[string]string{"same_url": srv.URL + "/services/T0/B0/t0ken",
		"moved_url": srv.URL + "/services/T0/B0/t0ken-moved"})}
	for _, tc := range []struct {
		c    notify.Channel
		want string
	}{
		{notify.Channel{Name: "moved", Kind: notify.Webhook, URL: srv.URL + "/moved"},
			"channel moved: the receiver redirected to " + target.URL + "/hook (301); put that URL in the channel"},
		{notify.Channel{Name: "found", Kind: notify.Webhook, URL: srv.URL + "/found"}, "redirected to " + target.URL + "/hook (302)"},
		{notify.Channel{Name: "temporary", Kind: notify.Webhook, URL: srv.URL + "/temporary"}, "redirected to " + target.URL + "/hook (307)"},
		{notify.Channel{Name: "permanent", Kind: notify.DingTalk, URL: srv.URL + "/permanent"}, "redirected to " + target.URL + "/robot/send (308)"},
		{notify.Channel{Name: "relative", Kind: notify.Webhook, URL: srv.URL + "/relative"}, "redirected to " + srv.URL + "/v2/hook (301)"},
		{notify.Channel{Name: "same", Kind: notify.Slack, URLSecret: "same_url"},
			"redirected to " + target.URL + ` with the same path (301); put the URL it redirects to in secret "same_url"`},
		{notify.Channel{Name: "elsewhere", Kind: notify.Slack, URLSecret: "moved_url"},
			"redirected to " + target.URL + ` with another path (not shown: it may carry the token) (301); put the URL it redirects to in secret "moved_url"`},
	} {
		m := deliverOnce(t, f, tc.c.Name, tc.c, cfg)
		if m.State != notify.Pending || m.Attempts != 1 || !strings.Contains(m.LastError, tc.want) {
			t.Errorf("channel %s redirected: the notification is %s after %d attempts with reason %q; want pending with a reason holding %q",
				tc.c.Name, m.State, m.Attempts, m.LastError, tc.want)
		}
		for _, secret := range []string{"pa55", "t0ken", "0ther", "part"} {
			if strings.Contains(m.LastError, secret) {
				t.Errorf("channel %s: the reason %q shows %q, a part of the URL that may be a token", tc.c.Name, m.LastError, secret)
			}
		}
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the redirects' target was sent %d requests, want none", n)
	}
}

// testReceiversAskingToWaitAreWaitedFor: a 429 or 503 answer with
// Retry-After, in seconds or as an HTTP date, puts the next attempt off
// for at least that long, at most the longest backoff (an hour), and its
// reason says the receiver asked to wait; so does a chat service's rate
// limit refusal, for as long as the service documents it refuses the
// robot's messages. The next attempt came after the usual backoff, a
// second here, and a receiver's wait used up every attempt.
func testReceiversAskingToWaitAreWaitedFor(t *testing.T, f Fixture) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/seconds":
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
		case "/date":
			w.Header().Set("Retry-After", time.Now().Add(300*time.Second).UTC().Format(http.TimeFormat))
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/day":
			w.Header().Set("Retry-After", "86400")
			w.WriteHeader(http.StatusTooManyRequests)
		case "/dingtalk":
			_, _ = io.WriteString(w, `{"errcode":130101,"errmsg":"send too fast, exceed 20 times per minute"}`)
		case "/wecom":
			_, _ = io.WriteString(w, `{"errcode":45009,"errmsg":"api freq out of limit"}`)
		case "/feishu":
			_, _ = io.WriteString(w, `{"code":11232,"data":{},"msg":"frequency limited"}`)
		default:
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	t.Cleanup(srv.Close)
	const slack = 2 * time.Second
	for _, tc := range []struct {
		name   string
		kind   notify.Kind
		wait   time.Duration
		reason string
	}{
		{"seconds", notify.Webhook, 120 * time.Second, "channel seconds: the receiver answered 429 and asked to wait 2m0s (Retry-After)"},
		{"date", notify.Webhook, 300 * time.Second, "the receiver answered 503 and asked to wait"},
		{"day", notify.Webhook, time.Hour, "the receiver answered 429 and asked to wait 24h0m0s (Retry-After), more than the 1h0m0s waited at most"},
		{"dingtalk", notify.DingTalk, 10 * time.Minute, "errcode 130101, \"send too fast, exceed 20 times per minute\"; a rate limit: DingTalk refuses the robot's messages for 10m0s"},
		{"wecom", notify.WeCom, time.Minute, "errcode 45009, \"api freq out of limit\"; a rate limit: WeCom refuses the robot's messages for 1m0s"},
		{"feishu", notify.Feishu, time.Minute, "code 11232, \"frequency limited\"; a rate limit: Feishu refuses the robot's messages for 1m0s"},
		// Last: its next attempt falls due within the rounds that follow.
		{"unasked", notify.Webhook, time.Second, "the receiver answered 429 with an empty body"},
	} {
		before, err := f.NowMs(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		m := deliverOnce(t, f, tc.name, notify.Channel{Name: tc.name, Kind: tc.kind, URL: srv.URL + "/" + tc.name}, notify.DeliveryConfig{BaseBackoff: time.Second})
		after, err := f.NowMs(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		// The failure was recorded between before and after.
		earliest, latest := time.Duration(m.NextAttemptAtMs-after)*time.Millisecond, time.Duration(m.NextAttemptAtMs-before)*time.Millisecond
		if m.State != notify.Pending || m.Attempts != 1 || !strings.Contains(m.LastError, tc.reason) || latest < tc.wait-slack || earliest > tc.wait {
			t.Errorf("channel %s: the notification is %s after %d attempts, next due in %s–%s, with reason %q; want pending, due in %s, with a reason holding %q",
				tc.name, m.State, m.Attempts, earliest, latest, m.LastError, tc.wait, tc.reason)
		}
	}
}

// testAskedWaitHoldsTheChannel: once a receiver asked for a wait, none of
// its channel's notifications is sent before the wait has passed, not only
// the refused one: each would be refused too and use up an attempt. A
// round sends a channel's share (3) side by side, all refused with a
// Retry-After; the fourth, due all along, waits, and goes out after it.
func testAskedWaitHoldsTheChannel(t *testing.T, f Fixture) {
	const wait = 2 * time.Second
	var requests, refused atomic.Int32
	var open atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		if !open.Load() {
			refused.Add(1)
			w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)))
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	t.Cleanup(srv.Close)
	c := notify.Channel{Name: "limited", Kind: notify.Webhook, URL: srv.URL}
	d := failedWith(t, f, "limited", notify.Spec{Channels: []notify.Channel{c}, Rules: []notify.Rule{{On: notify.OnFailed, Channel: c.Name}}})
	for i := 2; i <= notify.PerChannelInFlight+1; i++ {
		runFinished(t, f, d.Trigger.TriggerID, i, run.AttemptFailed)
	}
	deliverer := notify.NewDeliverer(notify.DeliveryConfig{Outbox: f.Outbox, BaseBackoff: time.Second})
	if _, err := deliverer.Round(t.Context()); err != nil {
		t.Fatalf("round: %v", err)
	}
	var waiting []string
	for _, m := range outbox(t, f) {
		if m.ProjectID == d.Project.ID && m.Attempts == 0 {
			waiting = append(waiting, m.ID)
		}
	}
	if n := requests.Load(); n != notify.PerChannelInFlight || len(waiting) != 1 {
		t.Fatalf("the receiver asked to wait %s and was sent %d requests, %d notification(s) left untried; want the share of %d refused together and the fourth kept back",
			wait, n, len(waiting), notify.PerChannelInFlight)
	}
	// The refused ones fall due again by the store's clock, which a
	// fixture may hold still; the one kept back was due all along.
	open.Store(true)
	time.Sleep(wait)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := deliverer.Round(t.Context()); err != nil {
			t.Fatalf("round: %v", err)
		}
		if m := outboxRow(t, f, waiting[0]); m.State == notify.Delivered && m.Attempts == 1 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the notification kept back is %s after %d attempts 10s after the wait ended; want it delivered at its first", m.State, m.Attempts)
		}
	}
	if n := refused.Load(); n != notify.PerChannelInFlight {
		t.Fatalf("%d requests refused, want only the share sent before the receiver asked to wait", n)
	}
}

// outboxRow is the outbox row id.
func outboxRow(t *testing.T, f Fixture, id string) notify.Message {
	t.Helper()
	for _, m := range outbox(t, f) {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("no notification %s in the outbox", id)
	return notify.Message{}
}

// secretsFile writes values to a secrets file, as the server reads them,
// and returns its resolver.
func secretsFile(t *testing.T, values map[string]string) notify.SecretResolver {
	t.Helper()
	file := filepath.Join(t.TempDir(), "qinglong-secrets.json")
	b, err := json.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return process.Secrets{Path: file}.Resolve
}

// deliverOnce publishes a project whose failures notify channel c, fails
// one Run and runs one delivery round of a deliverer configured by cfg
// (its outbox the fixture's, its backoff a minute unless cfg gives one,
// so the round ends before any failed notification falls due again); it
// returns the project's notification as the round left it.
func deliverOnce(t *testing.T, f Fixture, project string, c notify.Channel, cfg notify.DeliveryConfig) notify.Message {
	t.Helper()
	d := failedWith(t, f, project, notify.Spec{Channels: []notify.Channel{c}, Rules: []notify.Rule{{On: notify.OnFailed, Channel: c.Name}}})
	cfg.Outbox = f.Outbox
	if cfg.BaseBackoff == 0 {
		cfg.BaseBackoff = time.Minute
	}
	if _, err := notify.NewDeliverer(cfg).Round(t.Context()); err != nil {
		t.Fatalf("round: %v", err)
	}
	for _, m := range outbox(t, f) {
		if m.ProjectID == d.Project.ID {
			return m
		}
	}
	t.Fatalf("project %s has no notification, want the one its failed Run owes", project)
	return notify.Message{}
}
