package notify

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// The settings of an email, gotify, pushplus or serverchan channel that
// cannot work are refused when the file is applied, each with its reason
// and a sentence saying what to write instead; a login over plain text
// and a ServerChan SendKey written in the file among them.
func TestNewChannelKindsRefuseSettingsThatCannotWork(t *testing.T) {
	mail := func(edit func(*Channel)) Channel {
		c := Channel{Name: "m", Kind: Email, Host: "smtp.example.com", From: "ql@example.com", To: []string{"ops@example.com"},
			Username: "ql", PasswordSecret: "mail_pass"}
		edit(&c)
		return c
	}
	for _, tc := range []struct {
		name   string
		c      Channel
		reason qlerror.Reason
		says   string
	}{
		{"email without host", mail(func(c *Channel) { c.Host = "" }), validate.RefusalRequired, "notifications.channels.m.host: is required for email"},
		{"host with port", mail(func(c *Channel) { c.Host = "smtp.example.com:587" }), RefusalMailHost, "write the server's name alone, like smtp.example.com, and its port in port"},
		{"host a url", mail(func(c *Channel) { c.Host = "smtps://smtp.example.com" }), RefusalMailHost, "is not a host name or IP address"},
		{"port past range", mail(func(c *Channel) { c.Port = 70000 }), validate.RefusalOutOfRange, "m.port: 70000 is outside 1 … 65535"},
		{"tls unknown", mail(func(c *Channel) { c.TLS = "ssl" }), validate.RefusalNotOneOf, `m.tls: "ssl" is not one of starttls, implicit, none`},
		{"465 with starttls", mail(func(c *Channel) { c.Port, c.TLS = 465, TLSStartTLS }), RefusalMailPortTLS, "port 465 speaks TLS from its first byte"},
		{"465 plain", mail(func(c *Channel) { c.Port, c.TLS, c.Username, c.PasswordSecret = 465, TLSNone, "", "" }), RefusalMailPortTLS, "port 465"},
		{"no from", mail(func(c *Channel) { c.From = "" }), validate.RefusalRequired, "m.from: is required for email"},
		{"from no address", mail(func(c *Channel) { c.From = "QingLong" }), RefusalMailAddress, `m.from: "QingLong" is not a mail address`},
		{"from two addresses", mail(func(c *Channel) { c.From = "a@example.com, b@example.com" }), RefusalMailAddress, "is not a mail address"},
		{"from a header", mail(func(c *Channel) { c.From = "a@example.com\r\nBcc: x@example.com" }), RefusalMailAddress, "is not a mail address"},
		{"address not ascii", mail(func(c *Channel) { c.To = []string{"运维@example.cn"} }), RefusalMailAddress, "only ASCII addresses"},
		{"no recipient", mail(func(c *Channel) { c.To = nil }), validate.RefusalRequired, "m.to: is required for email"},
		{"recipient twice", mail(func(c *Channel) { c.To = []string{"ops@example.com", "Ops <OPS@example.com>"} }), validate.RefusalGivenTwice, `m.to[1]: "OPS@example.com" is given twice`},
		{"too many recipients", mail(func(c *Channel) {
			c.To = strings.Split(strings.Repeat("a@example.com ", MaxRecipients+1), " ")[:MaxRecipients+1]
		}),
			validate.RefusalTooMany, "send to a mailing list instead"},
		{"user without password", mail(func(c *Channel) { c.PasswordSecret = "" }), RefusalMailLogin, "m.passwordSecret: give username and passwordSecret together"},
		{"password without user", mail(func(c *Channel) { c.Username = "" }), RefusalMailLogin, "m.username: give username and passwordSecret together"},
		{"login in plain text", mail(func(c *Channel) { c.TLS = TLSNone }), RefusalMailPlainLogin, "the password would cross the network unencrypted"},
		{"password secret name", mail(func(c *Channel) { c.PasswordSecret = "my password" }), RefusalSecretName, `m.passwordSecret: "my password" is not a secret name`},
		{"user of a NUL", mail(func(c *Channel) { c.Username = "q\x00l" }), validate.RefusalNULByte, "m.username: contains a NUL byte"},
		{"email with a url", mail(func(c *Channel) { c.URL = "https://h.example.com" }), RefusalMailURL, "m.url: an email channel is sent over SMTP to its host; remove url"},
		{"email with a url secret", mail(func(c *Channel) { c.URLSecret = "u" }), RefusalMailURL, "remove urlSecret"},
		{"email with a token", mail(func(c *Channel) { c.TokenSecret = "t" }), RefusalTokenNotWebhook, "only webhook, ntfy, gotify, pushplus and serverchan channels send a token"},
		{"host on a webhook", Channel{Name: "m", Kind: Webhook, URL: "https://h.example.com", Host: "smtp.example.com"}, RefusalMailFieldNotEmail, "m.host: only an email channel has host"},
		{"to on slack", Channel{Name: "m", Kind: Slack, URLSecret: "u", To: []string{"a@example.com"}}, RefusalMailFieldNotEmail, "m.to: only an email channel has to"},
		{"gotify without token", Channel{Name: "m", Kind: Gotify, URL: "https://gotify.example.com"}, RefusalTokenRequired, "m.tokenSecret: is required for gotify"},
		{"gotify without url", Channel{Name: "m", Kind: Gotify, TokenSecret: "t"}, RefusalChannelNoURL, "needs url"},
		{"pushplus without token", Channel{Name: "m", Kind: PushPlus}, RefusalTokenRequired, "is required for pushplus"},
		{"serverchan url written", Channel{Name: "m", Kind: ServerChan, URL: "https://sctapi.ftqq.com/SCTx.send"}, RefusalServerChanKey, "the ServerChan URL carries its SendKey"},
		{"serverchan without key", Channel{Name: "m", Kind: ServerChan}, RefusalServerChanKey, "name the secret holding the SendKey in tokenSecret"},
		{"serverchan both", Channel{Name: "m", Kind: ServerChan, URLSecret: "u", TokenSecret: "t"}, RefusalServerChanKey, "one of the two"},
		{"telegram with token", Channel{Name: "m", Kind: Telegram, URLSecret: "u", ChatID: "@x", TokenSecret: "t"}, RefusalTokenNotWebhook, "send a token; remove it"},
	} {
		err := tc.c.Validate()
		if err == nil || qlerror.ReasonOf(err) != tc.reason || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v (reason %q), want reason %q saying %q", tc.name, err, qlerror.ReasonOf(err), tc.reason, tc.says)
		}
	}
	for _, c := range []Channel{
		mail(func(*Channel) {}),
		mail(func(c *Channel) {
			c.Host, c.Port, c.TLS, c.Username, c.PasswordSecret = "10.0.0.25", 2525, TLSNone, "", ""
		}),
		mail(func(c *Channel) { c.Host, c.From = "::1", "QingLong <root@localhost>" }),
		{Name: "m", Kind: Gotify, URLSecret: "gotify_url", TokenSecret: "t"},
		{Name: "m", Kind: PushPlus, URL: "http://www.pushplus.plus/send", TokenSecret: "t"},
		{Name: "m", Kind: ServerChan, URLSecret: "u"},
	} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v, want it taken", c, err)
		}
	}
}

// Without a port or tls, an email channel submits on 587 with STARTTLS;
// port 465 alone means TLS from the first byte, and tls: none alone the
// relay port 25.
func TestAnEmailChannelsPortAndTLSDefaultToSubmissionWithSTARTTLS(t *testing.T) {
	for _, tc := range []struct {
		port     int
		tls      string
		wantTLS  string
		wantPort int
	}{{0, "", TLSStartTLS, 587}, {465, "", TLSImplicit, 465}, {0, TLSImplicit, TLSImplicit, 465}, {0, TLSNone, TLSNone, 25},
		{2525, "", TLSStartTLS, 2525}, {25, TLSStartTLS, TLSStartTLS, 25}} {
		c := Channel{Kind: Email, Port: tc.port, TLS: tc.tls}
		if c.MailTLS() != tc.wantTLS || c.MailPort() != tc.wantPort {
			t.Errorf("port %d tls %q: %s on %d, want %s on %d", tc.port, tc.tls, c.MailTLS(), c.MailPort(), tc.wantTLS, tc.wantPort)
		}
	}
}

// A ServerChan SendKey names its URL as the service's SDKs build it:
// ServerChan³'s keys (sctp<uid>t…) post to their user's host, the others
// to ServerChan Turbo; a value that is no SendKey is refused without
// being shown.
func TestAServerChanSendKeyNamesItsURL(t *testing.T) {
	for key, want := range map[string]string{
		"SCT123456TAbCdEfGh":   "https://sctapi.ftqq.com/SCT123456TAbCdEfGh.send",
		"sctp8123tAbCdEf01234": "https://8123.push.ft07.com/send/sctp8123tAbCdEf01234.send",
	} {
		if got, err := ServerChanURL(key); err != nil || got != want {
			t.Errorf("SendKey %s: %q (%v), want %q", key, got, err, want)
		}
	}
	c := Channel{Name: "sct", Kind: ServerChan, TokenSecret: "sendkey"}
	for _, bad := range []string{"https://sctapi.ftqq.com/SCTx.send", "SCT key/../x", ""} {
		_, err := Build(sample(c), Secrets{"sendkey": bad}, sentAt)
		if err == nil || !strings.Contains(err.Error(), `secret "sendkey" (the SendKey of channel sct): is not a SendKey`) || (bad != "" && strings.Contains(err.Error(), bad)) {
			t.Errorf("SendKey %q: %v, want it refused naming the secret, not its value", bad, err)
		}
	}
}

// A Gotify channel posts to the server's /message with the application's
// token in X-Gotify-Key, whether its url is the server's address or the
// push URL Gotify's pages show; a failure is sent at priority 8, a
// recovery at 5.
func TestAGotifyChannelPostsToItsServersMessageWithTheAppToken(t *testing.T) {
	for _, u := range []string{"https://push.example.com", "https://push.example.com/", "https://push.example.com/message", "https://push.example.com/message/"} {
		c := Channel{Name: "g", Kind: Gotify, URL: u, TokenSecret: "app"}
		req, err := Build(sample(c), Secrets{"app": "AbCdEf.123"}, sentAt)
		if err != nil || !strings.HasPrefix(req.URL, "https://push.example.com/message") || strings.Contains(req.URL, "message/message") ||
			req.Headers["X-Gotify-Key"] != "AbCdEf.123" || req.Headers["Authorization"] != "" {
			t.Fatalf("url %s: request to %q with headers %v (%v), want /message with X-Gotify-Key", u, req.URL, req.Headers, err)
		}
	}
	c := Channel{Name: "g", Kind: Gotify, URL: "https://push.example.com/gotify", TokenSecret: "app"}
	m := sample(c)
	m.Payload.Event = OnRecovered
	req, err := Build(m, Secrets{"app": "AbCdEf.123"}, sentAt)
	var body struct{ Priority int }
	if err != nil || req.URL != "https://push.example.com/gotify/message" || json.Unmarshal(req.Body, &body) != nil || body.Priority != 5 {
		t.Fatalf("a recovery to %s with %s (%v), want priority 5 at /gotify/message", req.URL, req.Body, err)
	}
}

// A ServerChan URL made of its SendKey carries the key in its path, so a
// redirect of it is reported without the path, as one of a URL secret.
func TestAServerChanRedirectNeverShowsItsSendKey(t *testing.T) {
	u, err := ServerChanURL("SCT123456TAbCdEfGh")
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp := &http.Response{StatusCode: http.StatusMovedPermanently, Request: req,
		Header: http.Header{"Location": {"https://sct.ftqq.com/v2/SCT123456TAbCdEfGh.send?x=1"}}}
	got := redirection(resp, Channel{Name: "sct", Kind: ServerChan, TokenSecret: "sendkey"})
	if strings.Contains(got, "SCT123456") || !strings.Contains(got, "redirected to https://sct.ftqq.com with another path (not shown: it may carry the token) (301)") {
		t.Fatalf("redirect reported as %q, want the target's host without the path that holds the SendKey", got)
	}
}
