package notify

import (
	"bytes"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/http"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/freeport"
	"github.com/qinglong/qinglong/internal/testkit/smtptest"
)

const mailPassword = "pa55-w0rd-of-the-login"

// mailChannel is an email channel to srv, logging in as ql.
func mailChannel(srv *smtptest.Server) Channel {
	return Channel{Name: "mail", Kind: Email, Host: srv.Host, Port: srv.Port, From: "青龙 <ql@example.com>",
		To: []string{"ops@example.com", "值班 <oncall@example.cn>"}, Username: "ql", PasswordSecret: "mail_pass"}
}

// mailMessage is a notification whose title is Chinese: a project and a
// trigger of those names.
func mailMessage(c Channel) Message {
	m := sample(c)
	m.Payload.Project, m.Payload.Trigger = "商城", "夜间备份"
	m.CreatedAtMs = sentAt.UnixMilli()
	return m
}

// mailer is a deliverer whose secrets hold the login's password, trusting
// srv's certificate, with a delivery timeout of timeout.
func mailer(srv *smtptest.Server, timeout time.Duration) *Deliverer {
	return NewDeliverer(DeliveryConfig{Client: &http.Client{Timeout: timeout}, MailRoots: srv.Roots,
		Secrets: func([]string) (map[string]string, error) { return map[string]string{"mail_pass": mailPassword}, nil }})
}

// An email channel submits its notification as a mail user agent does:
// STARTTLS before anything else is said, the login over TLS, the envelope
// of its addresses, and a message whose subject is the notification's
// title encoded as UTF-8 (Chinese here), its Message-ID the notification's
// id, and its text the chat formats' text.
func TestAnEmailIsSubmittedOverSTARTTLSWithItsLoginEnvelopeAndMessage(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Config{Auth: "PLAIN LOGIN", Users: map[string]string{"ql": mailPassword}})
	c := mailChannel(srv)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	m := mailMessage(c)
	r, err := mailer(srv, 5*time.Second).send(t.Context(), m)
	if err != nil || r != answered {
		t.Fatalf("send: %v (reach %d), want delivered", err, r)
	}
	got := srv.Messages()
	if len(got) != 1 {
		t.Fatalf("the server took %d messages, want 1", len(got))
	}
	se := got[0]
	if se.Commands[0] != "EHLO" || se.Commands[1] != "STARTTLS" || !se.LoginTLS || !se.TLS || se.Mechanism != "PLAIN" ||
		se.User != "ql" || se.Password != mailPassword {
		t.Fatalf("commands %v, login %s of %q over TLS %t: want EHLO, STARTTLS, then a PLAIN login of ql with its password over TLS", se.Commands, se.Mechanism, se.User, se.LoginTLS)
	}
	if se.From != "ql@example.com" || strings.Join(se.To, " ") != "ops@example.com oncall@example.cn" {
		t.Fatalf("envelope from %q to %v, want ql@example.com to both addresses", se.From, se.To)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(se.Message))
	if err != nil {
		t.Fatal(err)
	}
	var dec mime.WordDecoder
	subject, err := dec.DecodeHeader(msg.Header.Get("Subject"))
	if err != nil || subject != Title(m.Payload) || subject != "QingLong: 商城/夜间备份 failed 3 times in a row" {
		t.Fatalf("subject %q (%v), want the title %q", subject, err, Title(m.Payload))
	}
	for _, l := range strings.Split(string(se.Message), "\r\n") {
		if len(l) > 998 || strings.ContainsFunc(l, func(r rune) bool { return r > 127 }) {
			t.Fatalf("message line %q: want 7-bit lines of at most 998 characters", l)
		}
	}
	from, err := mail.ParseAddress(msg.Header.Get("From"))
	if err != nil || from.Name != "青龙" || from.Address != "ql@example.com" {
		t.Fatalf("From %q read as %v (%v), want 青龙 <ql@example.com>", msg.Header.Get("From"), from, err)
	}
	to, err := msg.Header.AddressList("To")
	if err != nil || len(to) != 2 || to[1].Name != "值班" {
		t.Fatalf("To %q read as %v (%v), want both recipients, the second named 值班", msg.Header.Get("To"), to, err)
	}
	if id := msg.Header.Get("Message-ID"); id != "<"+m.ID+"@example.com>" {
		t.Fatalf("Message-ID %q, want the notification's id at the sender's domain", id)
	}
	if date, err := msg.Header.Date(); err != nil || !date.Equal(sentAt) {
		t.Fatalf("Date %v (%v), want when the notification was created, %v", date, err, sentAt)
	}
	if msg.Header.Get("Content-Type") != "text/plain; charset=utf-8" || msg.Header.Get(HeaderEvent) != "consecutive_failures" ||
		msg.Header.Get("Auto-Submitted") != "auto-generated" {
		t.Fatalf("headers %v, want UTF-8 text, the event and Auto-Submitted", msg.Header)
	}
	body, err := io.ReadAll(quotedprintable.NewReader(msg.Body))
	if err != nil || string(body) != strings.ReplaceAll(Title(m.Payload)+"\n\n"+english.text(m.Payload)+"\n", "\n", "\r\n") {
		t.Fatalf("body %q (%v), want the title and the text", body, err)
	}
	if bytes.Contains(se.Message, []byte(mailPassword)) {
		t.Fatal("the message carries the password")
	}
}

// A server on port 465 speaks TLS from its first byte; one that offers
// only AUTH LOGIN (Outlook's way) is logged in with it.
func TestAnEmailGoesOverImplicitTLSAndLogsInWithLOGIN(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Config{Implicit: true, Auth: "LOGIN", Users: map[string]string{"ql": mailPassword}})
	c := mailChannel(srv)
	c.TLS = TLSImplicit
	if r, err := mailer(srv, 5*time.Second).send(t.Context(), mailMessage(c)); err != nil || r != answered {
		t.Fatalf("send: %v, want delivered", err)
	}
	got := srv.Messages()
	if len(got) != 1 || got[0].Mechanism != "LOGIN" || got[0].User != "ql" || got[0].Password != mailPassword || !got[0].LoginTLS ||
		contains(got[0].Commands, "STARTTLS") {
		t.Fatalf("sessions %+v, want one message after a LOGIN login over TLS from the start", got)
	}
}

// A relay of tls: none takes mail without a login, in plain text.
func TestAnEmailToARelayOfTLSNoneIsSentWithoutALogin(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Config{NoStartTLS: true})
	c := Channel{Name: "relay", Kind: Email, Host: srv.Host, Port: srv.Port, TLS: TLSNone, From: "ql@example.com", To: []string{"ops@example.com"}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if r, err := mailer(srv, 5*time.Second).send(t.Context(), mailMessage(c)); err != nil || r != answered {
		t.Fatalf("send: %v, want delivered", err)
	}
	if got := srv.Messages(); len(got) != 1 || got[0].TLS || got[0].Mechanism != "" {
		t.Fatalf("sessions %+v, want one message in plain text without a login", got)
	}
}

// Every step an SMTP server refuses is a failed attempt whose reason says
// the server refused, at which step, with its code and what it said,
// temporary (4xx) or not (5xx); a recipient refused stops the delivery
// before the message, so a retry sends nobody a second copy. No reason
// shows the password, not even when the server repeats it.
func TestEveryStepASMTPServerRefusesIsAFailedAttemptSayingWhatItSaid(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     smtptest.Config
		reason  string
		message bool
	}{
		{"greeting", smtptest.Config{Replies: map[string]string{"GREETING": "554 5.3.2 no service for you"}},
			`refused: it greeted with 554: "5.3.2 no service for you"`, false},
		{"no starttls", smtptest.Config{NoStartTLS: true, Auth: "PLAIN"},
			"does not offer STARTTLS, which the channel requires (tls: starttls, the default)", false},
		{"starttls refused", smtptest.Config{Replies: map[string]string{"STARTTLS": "454 4.7.0 TLS not available now"}},
			`refused for now: it answered STARTTLS with 454, a temporary refusal: "4.7.0 TLS not available now"`, false},
		{"wrong password", smtptest.Config{Auth: "PLAIN", Users: map[string]string{"ql": "another"}},
			`refused: it answered the login of "ql" (AUTH PLAIN) with 535: "5.7.8 username and password not accepted"; check username and the password in secret "mail_pass"`, false},
		{"password repeated", smtptest.Config{Auth: "PLAIN", Replies: map[string]string{"AUTH": "535 5.7.8 bad password " + mailPassword}},
			`with 535: "5.7.8 bad password <secret mail_pass>"`, false},
		{"no login offered", smtptest.Config{},
			"offers no login (AUTH) on this connection", false},
		{"no login it speaks", smtptest.Config{Auth: "XOAUTH2 CRAM-MD5"},
			`offers the logins "XOAUTH2 CRAM-MD5", none of them PLAIN or LOGIN`, false},
		{"sender", smtptest.Config{Auth: "PLAIN", Users: map[string]string{"ql": mailPassword}, Replies: map[string]string{"MAIL": "550 5.7.1 ql may not send as ql@example.com"}},
			`refused: it answered MAIL FROM:<ql@example.com> with 550: "5.7.1 ql may not send as ql@example.com"`, false},
		{"recipient later", smtptest.Config{Auth: "PLAIN", Users: map[string]string{"ql": mailPassword}, Replies: map[string]string{"RCPT oncall@example.cn": "451 4.7.1 greylisted, try again later"}},
			`refused for now: it answered RCPT TO:<oncall@example.cn> with 451, a temporary refusal: "4.7.1 greylisted, try again later"`, false},
		{"recipient", smtptest.Config{Auth: "PLAIN", Users: map[string]string{"ql": mailPassword}, Replies: map[string]string{"RCPT ops@example.com": "550 5.1.1 no such user"}},
			`refused: it answered RCPT TO:<ops@example.com> with 550: "5.1.1 no such user"`, false},
		{"data", smtptest.Config{Auth: "PLAIN", Users: map[string]string{"ql": mailPassword}, Replies: map[string]string{"DATA": "554 5.5.1 no valid recipients"}},
			`refused: it answered DATA with 554`, false},
		{"message", smtptest.Config{Auth: "PLAIN", Users: map[string]string{"ql": mailPassword}, Replies: map[string]string{"END": "552 5.3.4 message too big"}},
			`refused: it answered the end of the message with 552: "5.3.4 message too big"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := smtptest.Start(t, tc.cfg)
			r, err := mailer(srv, 5*time.Second).send(t.Context(), mailMessage(mailChannel(srv)))
			if err == nil || r != answered || !strings.Contains(err.Error(), tc.reason) || !strings.Contains(err.Error(), "channel mail: the mail server "+srv.Addr()) {
				t.Fatalf("send: %v (reach %d), want an answered failure naming the channel and server and holding %q", err, r, tc.reason)
			}
			if strings.Contains(err.Error(), mailPassword) {
				t.Fatalf("the reason %q shows the password", err)
			}
			if n := len(srv.Messages()); n != 0 {
				t.Fatalf("the server took %d messages, want none", n)
			}
			for _, se := range srv.Sessions() {
				if se.Mechanism != "" && !se.LoginTLS {
					t.Fatal("the password was sent over a connection not encrypted")
				}
				if (tc.name == "no starttls" || tc.name == "starttls refused") && (se.Mechanism != "" || contains(se.Commands, "MAIL")) {
					t.Fatalf("commands %v after STARTTLS failed, want none but EHLO", se.Commands)
				}
				if strings.HasPrefix(tc.name, "recipient") && contains(se.Commands, "DATA") {
					t.Fatalf("commands %v: DATA after a recipient was refused", se.Commands)
				}
			}
		})
	}
}

// A server whose certificate the machine does not trust is told nothing,
// after STARTTLS or with TLS from the start: the login is not sent, and
// the reason says what to check. A channel of implicit TLS to a server
// that speaks plain text first fails its handshake, saying so.
func TestAnEmailServerWithACertificateNotTrustedIsSentNoLogin(t *testing.T) {
	for _, implicit := range []bool{false, true} {
		srv := smtptest.Start(t, smtptest.Config{Implicit: implicit, Auth: "PLAIN", Users: map[string]string{"ql": mailPassword}})
		d := mailer(srv, 5*time.Second)
		d.cfg.MailRoots = nil
		c := mailChannel(srv)
		if implicit {
			c.TLS = TLSImplicit
		}
		_, err := d.send(t.Context(), mailMessage(c))
		if err == nil || !strings.Contains(err.Error(), "channel mail: TLS with the mail server "+srv.Addr()+" failed: x509: certificate signed by unknown authority; "+
			"its certificate must be valid for host and signed by an authority this machine trusts") {
			t.Fatalf("implicit %t: send: %v, want a failure naming the certificate and what to check", implicit, err)
		}
		for _, se := range srv.Sessions() {
			if se.Mechanism != "" || contains(se.Commands, "MAIL") {
				t.Fatalf("implicit %t: commands %v: the login or the envelope went to a server not trusted", implicit, se.Commands)
			}
		}
	}
	srv := smtptest.Start(t, smtptest.Config{})
	c := mailChannel(srv)
	c.TLS = TLSImplicit
	r, err := mailer(srv, 5*time.Second).send(t.Context(), mailMessage(c))
	if err == nil || r != noAnswer || !strings.Contains(err.Error(), "TLS with the mail server "+srv.Addr()+" failed: tls: first record does not look like a TLS handshake") {
		t.Fatalf("implicit TLS to a plain-text server: %v (reach %d), want the handshake's failure", err, r)
	}
}

// A server that never answers, or a port nobody listens on, is no answer:
// the send ends within the delivery timeout and the channel goes silent.
func TestAnEmailServerThatDoesNotAnswerIsNoAnswerWithinTheTimeout(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Config{Mute: true})
	const timeout = 300 * time.Millisecond
	start := time.Now()
	r, err := mailer(srv, timeout).send(t.Context(), mailMessage(mailChannel(srv)))
	if took := time.Since(start); err == nil || r != noAnswer || !strings.Contains(err.Error(), "never greeted: no answer within") || took > timeout+time.Second {
		t.Fatalf("send to a mute server: %v (reach %d) after %s, want no answer within %s", err, r, took, timeout)
	}

	_, closed := splitHostPort(t, freeport.Refused(t))
	c := mailChannel(srv)
	c.Port = closed
	r, err = mailer(srv, timeout).send(t.Context(), mailMessage(c))
	if err == nil || r != noAnswer || !strings.Contains(err.Error(), "cannot reach the mail server 127.0.0.1:") {
		t.Fatalf("send to a closed port: %v (reach %d), want no answer, the server not reached", err, r)
	}
}
