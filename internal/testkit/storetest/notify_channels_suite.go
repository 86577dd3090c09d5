package storetest

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"reflect"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/smtptest"
)

// testNewChannelsReachTheirNotificationsWhole: an email, gotify, pushplus
// and serverchan channel's settings (an email channel's list of
// recipients, a channel's language and time zone among them) are stored with the project and copied whole to
// every notification, a Run's and a ledger entry's (which the cluster
// writes in SQL, from the stored settings), on both commit paths.
func testNewChannelsReachTheirNotificationsWhole(t *testing.T, f Fixture) {
	channels := []notify.Channel{
		{Name: "mail", Kind: notify.Email, Host: "smtp.example.com", Port: 465, TLS: notify.TLSImplicit, From: "青龙 <ql@example.com>",
			To: []string{"ops@example.com", "值班 <oncall@example.cn>"}, Username: "ql@example.com", PasswordSecret: "mail_pass"},
		{Name: "phone", Kind: notify.Gotify, URL: "https://gotify.example.com", TokenSecret: "gotify_app", Language: notify.Chinese, TimeZone: "Asia/Shanghai"},
		{Name: "wechat", Kind: notify.PushPlus, TokenSecret: "pushplus_token"},
		{Name: "sct", Kind: notify.ServerChan, TokenSecret: "sendkey"},
	}
	var rules []notify.Rule
	for _, c := range channels {
		rules = append(rules, notify.Rule{On: notify.OnSkipped, Channel: c.Name}, notify.Rule{On: notify.OnFailed, Channel: c.Name})
	}
	spec := notify.Spec{Channels: channels, Rules: rules}
	check := func(what string, d defs, event notify.Event) {
		t.Helper()
		n := 0
		for _, m := range outbox(t, f) {
			if m.ProjectID != d.Project.ID {
				continue
			}
			n++
			want, _ := spec.Channel(m.Channel.Name)
			if m.Event != event || !reflect.DeepEqual(m.Channel, want) {
				t.Errorf("%s: the %s notification to %s holds the channel %+v, want a %s one holding %+v", what, m.Event, m.Channel.Name, m.Channel, event, want)
			}
		}
		if n != len(channels) {
			t.Fatalf("%s: %d notifications, want one to each of the %d channels", what, n, len(channels))
		}
	}
	check("a failed Run", failedWith(t, f, "channels-run", spec), notify.OnFailed)

	c := quietCron(t, f)
	c.MisfirePolicy = trigger.Skip
	for _, page := range []bool{false, true} {
		d := newDefs(t, f, map[bool]string{false: "channels-skip", true: "channels-skip-paged"}[page], c)
		saveNotifications(t, f, &d, spec)
		initialise(t, f)
		fx := f
		fx.page = page
		makeDue(t, fx, d.Trigger.TriggerID, 6*60*60_000)
		if res := commit(t, fx, commitParams(t, takeOne(t, fx))); res.Outcome != schedule.Skipped {
			t.Fatalf("commit: %s (%s), want occurrences passed over", res.Outcome, res.Reason)
		}
		check(map[bool]string{false: "a ledger entry", true: "a ledger entry of a page"}[page], d, notify.OnSkipped)
	}
}

// testAnEmailIsSubmittedAndRetriedWithItsMessageID: an email
// notification goes to its SMTP server over STARTTLS with the login whose
// password the secrets file holds; a server that refuses it (a temporary
// refusal at the message's end here) fails the attempt with what it
// said, never the password, and the notification retried by hand is
// taken with its id as Message-ID, the same at every delivery.
func testAnEmailIsSubmittedAndRetriedWithItsMessageID(t *testing.T, f Fixture) {
	const password = "qq-smtp-auth-c0de"
	srv := smtptest.Start(t, smtptest.Config{Auth: "PLAIN LOGIN", Users: map[string]string{"12345@qq.com": password},
		Replies: map[string]string{"END": "451 4.3.0 queue full, try again later"}})
	c := notify.Channel{Name: "mail", Kind: notify.Email, Host: srv.Host, Port: srv.Port, From: "青龙 <12345@qq.com>",
		To: []string{"ops@example.com"}, Username: "12345@qq.com", PasswordSecret: "qq_smtp"}
	cfg := notify.DeliveryConfig{Secrets: secretsFile(t, map[string]string{"qq_smtp": password}), MailRoots: srv.Roots, MaxAttempts: 1}
	m := deliverOnce(t, f, "mail", c, cfg)
	if m.State != notify.Dead || m.Attempts != 1 ||
		!strings.Contains(m.LastError, "channel mail: the mail server "+srv.Addr()+` refused for now: it answered the end of the message with 451, a temporary refusal: "4.3.0 queue full, try again later"`) {
		t.Fatalf("a refused email is %s after %d attempts with reason %q; want dead at its only allowed attempt, saying what the server said", m.State, m.Attempts, m.LastError)
	}
	if strings.Contains(m.LastError, password) {
		t.Fatalf("the reason %q shows the password", m.LastError)
	}

	srv.Reply("END", "")
	if _, err := f.Outbox.NotificationRetry(t.Context(), m.ID, "ops"); err != nil {
		t.Fatal(err)
	}
	cfg.Outbox = f.Outbox
	if _, err := notify.NewDeliverer(cfg).Round(t.Context()); err != nil {
		t.Fatalf("round: %v", err)
	}
	if got := outboxRow(t, f, m.ID); got.State != notify.Delivered {
		t.Fatalf("the retried email is %s (%q), want delivered", got.State, got.LastError)
	}
	took := srv.Messages()
	if len(took) != 1 || !took[0].LoginTLS || took[0].User != "12345@qq.com" || took[0].From != "12345@qq.com" ||
		strings.Join(took[0].To, ",") != "ops@example.com" {
		t.Fatalf("the server took %+v, want one message after a login over TLS, from 12345@qq.com to ops@example.com", took)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(took[0].Message))
	if err != nil {
		t.Fatal(err)
	}
	var dec mime.WordDecoder
	subject, _ := dec.DecodeHeader(msg.Header.Get("Subject"))
	if id := msg.Header.Get("Message-ID"); id != "<"+m.ID+"@qq.com>" || subject != notify.Title(m.Payload) {
		t.Fatalf("Message-ID %q and subject %q, want <%s@qq.com> and %q", id, subject, m.ID, notify.Title(m.Payload))
	}
}

// testPushServicesAreTakenOnlyWithTheirAcknowledgement: Gotify is posted
// its title, text and priority at the server's /message with the
// application token in X-Gotify-Key; PushPlus its token, title and text,
// taken only when its answer's code is 200; ServerChan its title and
// text, taken only when its answer's code is 0. Any other answer is a
// failed attempt naming the service's code and message, or quoting the
// answer that is none of its.
func testPushServicesAreTakenOnlyWithTheirAcknowledgement(t *testing.T, f Fixture) {
	const appToken, ppToken = "AbCdEf.gotify-app", "pushplus-t0ken-0123"
	answers := map[string]string{
		"/pushplus-ok":      `{"code":200,"msg":"请求成功","data":"f1e2d3c4b5a6","count":null}`,
		"/pushplus-token":   `{"code":903,"msg":"无效的用户令牌","data":null}`,
		"/pushplus-page":    `<html>proxy login</html>`,
		"/SCTok.send":       `{"code":0,"message":"","data":{"pushid":"12345","readkey":"SCTabc","error":"SUCCESS","errno":0}}`,
		"/SCTbad.send":      `{"code":40001,"message":"bad pushtoken","data":null}`,
		"/SCTold.send":      `{"errno":0,"errmsg":"success"}`,
		"/gotify/message":   `{"id":25,"appid":5,"message":"…","title":"…","priority":8,"date":"2026-11-30T02:00:00Z"}`,
		"/gotify-x/message": `{"error":"Unauthorized","errorCode":401,"errorDescription":"you need to provide a valid access token or user credentials to access this api"}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var fields map[string]any
		_ = json.Unmarshal(body, &fields)
		ok := true
		switch {
		case strings.HasPrefix(r.URL.Path, "/pushplus"):
			ok = fields["token"] == ppToken && fields["template"] == "txt" && fields["title"] != "" && fields["content"] != ""
		case strings.HasPrefix(r.URL.Path, "/SCT"):
			ok = fields["title"] != "" && strings.Contains(fields["desp"].(string), "\n\n")
		case strings.HasPrefix(r.URL.Path, "/gotify"):
			ok = r.Header.Get("X-Gotify-Key") == appToken && fields["priority"] == float64(8) && fields["message"] != ""
			if r.URL.Path == "/gotify-x/message" {
				w.WriteHeader(http.StatusUnauthorized)
			}
		}
		if !ok {
			w.WriteHeader(http.StatusTeapot)
			return
		}
		_, _ = io.WriteString(w, answers[r.URL.Path])
	}))
	t.Cleanup(srv.Close)
	cfg := notify.DeliveryConfig{Secrets: secretsFile(t, map[string]string{"app": appToken, "pp": ppToken,
		"sct_ok": srv.URL + "/SCTok.send", "sct_bad": srv.URL + "/SCTbad.send", "sct_old": srv.URL + "/SCTold.send"})}
	for _, tc := range []struct {
		c notify.Channel
		// reason is what the reason must hold; "" is delivered.
		reason string
	}{
		{notify.Channel{Name: "pushplus-ok", Kind: notify.PushPlus, URL: srv.URL + "/pushplus-ok", TokenSecret: "pp"}, ""},
		{notify.Channel{Name: "pushplus-token", Kind: notify.PushPlus, URL: srv.URL + "/pushplus-token", TokenSecret: "pp"},
			`channel pushplus-token: PushPlus refused the notification: code 903, "无效的用户令牌"`},
		{notify.Channel{Name: "pushplus-page", Kind: notify.PushPlus, URL: srv.URL + "/pushplus-page", TokenSecret: "pp"},
			`the receiver answered 200 without PushPlus's acknowledgement (a JSON object with code 200): "<html>proxy login</html>"`},
		{notify.Channel{Name: "sct-ok", Kind: notify.ServerChan, URLSecret: "sct_ok"}, ""},
		{notify.Channel{Name: "sct-bad", Kind: notify.ServerChan, URLSecret: "sct_bad"}, `channel sct-bad: ServerChan refused the notification: code 40001, "bad pushtoken"`},
		{notify.Channel{Name: "sct-old", Kind: notify.ServerChan, URLSecret: "sct_old"}, "without ServerChan's acknowledgement (a JSON object with code 0)"},
		{notify.Channel{Name: "gotify-ok", Kind: notify.Gotify, URL: srv.URL + "/gotify", TokenSecret: "app"}, ""},
		{notify.Channel{Name: "gotify-x", Kind: notify.Gotify, URL: srv.URL + "/gotify-x/", TokenSecret: "app"},
			`channel gotify-x: the receiver answered 401: "{\"error\":\"Unauthorized\"`},
	} {
		m := deliverOnce(t, f, tc.c.Name, tc.c, cfg)
		switch {
		case tc.reason == "" && m.State != notify.Delivered:
			t.Errorf("channel %s: the notification is %s (%q), want delivered", tc.c.Name, m.State, m.LastError)
		case tc.reason != "" && (m.State != notify.Pending || m.Attempts != 1 || !strings.Contains(m.LastError, tc.reason)):
			t.Errorf("channel %s: the notification is %s after %d attempts with reason %q; want pending, to be retried, with a reason holding %q",
				tc.c.Name, m.State, m.Attempts, m.LastError, tc.reason)
		}
		for _, secret := range []string{appToken, ppToken} {
			if strings.Contains(m.LastError, secret) {
				t.Errorf("channel %s: the reason %q shows a token", tc.c.Name, m.LastError)
			}
		}
	}
}
