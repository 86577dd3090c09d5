package notify

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/*.golden from the current formats")

// sentAt is when the tests' deliveries are made.
var sentAt = time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)

// sample is one consecutive_failures notification, as the outbox stores it,
// quoting the end of its output.
func sample(c Channel) Message {
	id := "01930000-0000-7000-8000-00000000abcd"
	return Message{ID: id, Event: OnConsecutiveFailures, Channel: c, State: Pending, Payload: Payload{
		ID: id, Event: OnConsecutiveFailures, Project: "shop", Trigger: "nightly-backup", RunID: "01930000-0000-7000-8000-000000000001",
		RunState: "failed", ErrorCode: "exit_status", ScheduledFor: "2026-11-30T02:00:00Z", FinishedAt: "2026-11-30T02:00:03.25Z",
		ConsecutiveFailures: 3, Task: "backup", Attempt: 2, ExitCode: &exitTwo,
		Output: "tar: /srv/private: Cannot open: Permission denied\ntar: Exiting with failure status due to previous errors",
	}}
}

var exitTwo = 2

// Each built-in channel renders the same notification into its service's
// body format; the golden files are what the services document (an email
// channel's is its whole message).
func TestEveryChannelKindRendersItsGoldenBody(t *testing.T) {
	for _, kind := range Kinds {
		t.Run(string(kind), func(t *testing.T) {
			c, wantURL := goldenChannel(kind)
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			var body []byte
			if kind == Email {
				mail, err := BuildMail(sample(c), sentAt)
				if err != nil {
					t.Fatal(err)
				}
				if mail.From != "ql@example.com" || strings.Join(mail.To, " ") != "ops@example.com oncall@example.cn" {
					t.Fatalf("envelope from %q to %q, want the addresses without their display names", mail.From, mail.To)
				}
				body = mail.Message
			} else {
				req, err := Build(sample(c), secrets, sentAt)
				if err != nil {
					t.Fatal(err)
				}
				if req.URL != wantURL || req.Headers[HeaderIdempotencyKey] != sample(c).ID || req.Headers[HeaderEvent] != "consecutive_failures" {
					t.Fatalf("request to %q with headers %v; want %s, the row id as idempotency key and the event", req.URL, req.Headers, wantURL)
				}
				if kind != Ntfy && !json.Valid(req.Body) {
					t.Fatalf("body is not JSON: %s", req.Body)
				}
				body = req.Body
				again, err := Build(sample(c), secrets, sentAt)
				if err != nil || !bytes.Equal(again.Body, req.Body) {
					t.Fatal("two deliveries of one row differ in their body")
				}
			}
			matchGolden(t, filepath.Join("testdata", string(kind)+".golden"), body)
			// PushPlus takes its token in the body and nowhere else.
			for name, v := range secrets {
				if name != "url" && bytes.Contains(body, []byte(v)) != (kind == PushPlus && name == "pushplus") {
					t.Fatalf("the body carries secret %s or lacks PushPlus's token: %s", name, body)
				}
			}
		})
	}
}

// matchGolden fails t unless body is the golden file's content; with
// -update-golden it writes body there first.
func matchGolden(t *testing.T, golden string, body []byte) {
	t.Helper()
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update-golden to create it)", err)
	}
	if !bytes.Equal(body, want) {
		t.Fatalf("body\n%s\nwant (%s)\n%s", body, golden, want)
	}
}

// secrets are the values of the golden channels' secrets.
var secrets = Secrets{"url": "https://chat.example.com/hook?token=t0ken-value", "hmac": "s3cret-value", "token": "bearer-value",
	"pushplus": "pushplus-t0ken", "sendkey": "SCT123456TAbCdEfGh", "mail": "ma1l-password"}

// goldenChannel is a channel of kind with the settings its service
// needs, and the URL its requests go to.
func goldenChannel(kind Kind) (Channel, string) {
	c := Channel{Name: "ops", Kind: kind, URLSecret: "url"}
	wantURL := secrets["url"]
	switch kind {
	case Webhook:
		c.SigningSecret = "hmac"
	case Telegram:
		c.ChatID = "-1001234567890"
	case Ntfy:
		c.TokenSecret = "token"
	case Gotify:
		c.TokenSecret = "token"
		wantURL = "https://chat.example.com/hook/message?token=t0ken-value"
	case PushPlus:
		c.URLSecret, c.TokenSecret, wantURL = "", "pushplus", PushPlusURL
	case ServerChan:
		c.URLSecret, c.TokenSecret, wantURL = "", "sendkey", "https://sctapi.ftqq.com/SCT123456TAbCdEfGh.send"
	case Email:
		c = Channel{Name: "ops", Kind: Email, Host: "smtp.example.com", From: "QingLong <ql@example.com>",
			To: []string{"ops@example.com", "值班 <oncall@example.cn>"}, Username: "ql@example.com", PasswordSecret: "mail"}
	}
	return c, wantURL
}

// A webhook body is signed with HMAC-SHA256 under the channel's secret; a
// receiver holding the secret verifies it, and a changed body or another
// secret fails.
func TestWebhookSignatureVerifiesOnlyTheSignedBodyAndSecret(t *testing.T) {
	c := Channel{Name: "ops", Kind: Webhook, URL: "https://hooks.example.com/ql", SigningSecret: "hmac", TokenSecret: "token"}
	req, err := Build(sample(c), Secrets{"hmac": "s3cret-value", "token": "bearer-value"}, sentAt)
	if err != nil {
		t.Fatal(err)
	}
	sig := req.Headers[HeaderSignature]
	if !strings.HasPrefix(sig, "sha256=") || len(sig) != len("sha256=")+64 {
		t.Fatalf("signature header %q, want sha256=<64 hex>", sig)
	}
	if req.Headers["Authorization"] != "Bearer bearer-value" {
		t.Fatalf("authorization %q", req.Headers["Authorization"])
	}
	if !Verify("s3cret-value", req.Body, sig) {
		t.Fatal("the receiver's check fails on the signed body")
	}
	if Verify("another-secret", req.Body, sig) || Verify("s3cret-value", append(req.Body, ' '), sig) {
		t.Fatal("the signature verifies another secret or a changed body")
	}
	var p Payload
	if err := json.Unmarshal(req.Body, &p); err != nil || !reflect.DeepEqual(p, sample(c).Payload) {
		t.Fatalf("webhook body %s does not decode to the payload (%v)", req.Body, err)
	}
}

// A signed DingTalk channel adds timestamp (milliseconds) and sign to its
// URL, a signed Feishu channel timestamp (seconds) and sign to its body,
// as the services document; the expected values were computed apart, with
// Python's hmac.
func TestDingTalkAndFeishuSignAsTheServicesCheck(t *testing.T) {
	secrets := Secrets{"url": "https://oapi.dingtalk.com/robot/send?access_token=t0ken", "sec": "SEC0123456789abcdef"}
	ding := Channel{Name: "ops", Kind: DingTalk, URLSecret: "url", SigningSecret: "sec"}
	if err := ding.Validate(); err != nil {
		t.Fatal(err)
	}
	req, err := Build(sample(ding), secrets, sentAt)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if q.Get("access_token") != "t0ken" || q.Get("timestamp") != "1796004000000" || q.Get("sign") != "71F0PtoZggxnVfsDW693DyFGfW2o0Gf4OdGAUa767HA=" {
		t.Fatalf("DingTalk query %v, want the token kept, timestamp 1796004000000 and its sign", q)
	}
	if _, ok := req.Headers[HeaderSignature]; ok || bytes.Contains(req.Body, []byte("sign")) {
		t.Fatalf("a DingTalk request carries QingLong's signature or a sign in its body: %v %s", req.Headers, req.Body)
	}

	feishu := Channel{Name: "ops", Kind: Feishu, URL: "https://open.feishu.cn/open-apis/bot/v2/hook/x", SigningSecret: "sec"}
	if err := feishu.Validate(); err != nil {
		t.Fatal(err)
	}
	req, err = Build(sample(feishu), secrets, sentAt)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Timestamp string `json:"timestamp"`
		Sign      string `json:"sign"`
		MsgType   string `json:"msg_type"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil || body.Timestamp != "1796004000" ||
		body.Sign != "X8nnd7HPeq5PO+hS6UPd/cQdh80hNc8L7LBjce6CPm8=" || body.MsgType != "text" || req.URL != feishu.URL {
		t.Fatalf("Feishu request to %s with body %s (%v), want timestamp 1796004000 and its sign in a text message", req.URL, req.Body, err)
	}
	if bytes.Contains(req.Body, []byte(secrets["sec"])) {
		t.Fatal("a Feishu body carries the signing secret itself")
	}

	for _, kind := range []Kind{WeCom, Slack, Telegram, Bark, Ntfy} {
		c := Channel{Name: "ops", Kind: kind, URLSecret: "url", SigningSecret: "sec", ChatID: map[bool]string{true: "@x"}[kind == Telegram]}
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "only webhook, dingtalk and feishu channels sign") {
			t.Errorf("a signing secret on a %s channel: %v, want it refused", kind, err)
		}
	}
}

// A URL from a secret is checked like one written in the file, and the
// error names the secret, never its value.
func TestASecretURLIsCheckedWithoutShowingIt(t *testing.T) {
	c := Channel{Name: "ops", Kind: Slack, URLSecret: "slack"}
	_, err := Build(sample(c), Secrets{"slack": "ftp://user:pa55word@example.com"}, sentAt)
	if err == nil || !strings.Contains(err.Error(), `"slack"`) || strings.Contains(err.Error(), "pa55word") {
		t.Fatalf("error %v; want one naming the secret without its value", err)
	}
}

// A rule of consecutive failures with a count of one titles its
// notification "failed 1 time in a row", and more than one in the plural.
func TestAConsecutiveFailuresTitleCountsOneTimeInTheSingular(t *testing.T) {
	for n, want := range map[int]string{1: "QingLong: shop/nightly failed 1 time in a row", 3: "QingLong: shop/nightly failed 3 times in a row"} {
		p := Payload{Event: OnConsecutiveFailures, Project: "shop", Trigger: "nightly", ConsecutiveFailures: n}
		if got := Title(p); got != want {
			t.Errorf("Title after %d failures = %q, want %q", n, got, want)
		}
	}
}

// ServerChan shows at most 32 characters of a title: a title that fits is
// sent as it is; a longer one leads with what happened and loses the end
// of whose it was, never the verb.
func TestAServerChanTitleTooLongKeepsWhatHappenedAndCutsTheName(t *testing.T) {
	for _, c := range []struct {
		p    Payload
		want string
	}{
		{Payload{Event: OnFailed, Project: "shop", Trigger: "nightly"}, "QingLong: shop/nightly failed"},
		{Payload{Event: OnFinished, RunState: "succeeded", Project: "shop", Trigger: "daily-checkin"}, "succeeded: shop/daily-checkin"},
		{Payload{Event: OnConsecutiveFailures, ConsecutiveFailures: 3, Project: "shop", Trigger: "daily-checkin"}, "failed 3 times in a row: shop/d…"},
		{Payload{Event: OnSkipped, Project: "签到项目", Trigger: "每日签到任务每日签到任务"}, "skipped an occurrence: 签到项目/每日签…"},
	} {
		ch, _ := goldenChannel(ServerChan)
		req, err := Build(Message{ID: "n1", Channel: ch, Payload: c.p}, secrets, sentAt)
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Title, Desp string }
		if err := json.Unmarshal(req.Body, &body); err != nil {
			t.Fatal(err)
		}
		if body.Title != c.want || utf8.RuneCountInString(body.Title) > serverChanTitleLen || !strings.HasPrefix(body.Desp, Title(c.p)+"\n") {
			t.Errorf("%+v: title %q, desp %q; want title %q (at most %d characters) and the whole title leading desp", c.p, body.Title, body.Desp, c.want, serverChanTitleLen)
		}
	}
}
