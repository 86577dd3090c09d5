package notify

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/smtp"
	"net/textproto"
	"os"
	"strconv"
	"strings"
	"time"
)

// helloName is the name the server gives itself in EHLO: the machine's,
// when it is a host name, else localhost.
func helloName() string {
	if h, err := os.Hostname(); err == nil && len(h) <= maxHostLen && hostName.MatchString(h) {
		return h
	}
	return "localhost"
}

// sendMail makes one delivery of m to its email channel's SMTP server,
// the whole conversation within the delivery timeout: STARTTLS (required
// unless the channel says tls: implicit or none), the login, the envelope
// and the message. The server has the message once it answers 250 to
// its end; a recipient refused stops the delivery before the message is
// sent, so no recipient gets it twice when it is retried. A reply of the
// server is an answer, whatever its code: a 4xx is a temporary refusal,
// a 5xx a permanent one, and both are failed attempts, retried; a
// connection that fails or falls silent is none.
func (d *Deliverer) sendMail(ctx context.Context, m Message, sec Secrets) (reach, error) {
	c := m.Channel
	msg, err := BuildMail(m, time.Now())
	if err != nil {
		return notSent, because(ReasonMisconfigured, err)
	}
	server := net.JoinHostPort(c.Host, strconv.Itoa(c.MailPort()))
	talk := smtpTalk{channel: c.Name, server: server, passwordSecret: c.PasswordSecret, mask: newSecretMask(c, sec), timeout: d.cfg.Client.Timeout}
	deadline := time.Now().Add(d.cfg.Client.Timeout)
	config := &tls.Config{ServerName: c.Host, RootCAs: d.cfg.MailRoots, MinVersion: tls.VersionTLS12}
	dialer := &net.Dialer{Deadline: deadline}
	if rule := d.cfg.addresses(); rule != (addressRule{}) {
		dialer.Control = rule.control
	}
	var conn net.Conn
	if c.MailTLS() == TLSImplicit {
		conn, err = (&tls.Dialer{NetDialer: dialer, Config: config}).DialContext(ctx, "tcp", server)
	} else {
		conn, err = dialer.DialContext(ctx, "tcp", server)
	}
	if err != nil {
		var refused *AddressRefusedError
		if errors.As(err, &refused) {
			return notSent, because(ReasonMisconfigured, fmt.Errorf("channel %s: the mail server %s: %s", c.Name, server, refused.Error()))
		}
		if why, ok := tlsFailure(err); ok {
			return noAnswer, because(ReasonTLSFailed, fmt.Errorf("channel %s: TLS with the mail server %s failed: %s", c.Name, server, why))
		}
		return noAnswer, because(connReason(err), fmt.Errorf("channel %s: cannot reach the mail server %s: %s", c.Name, server, talk.netReason(err)))
	}
	defer conn.Close() //nolint:errcheck // the delivery's outcome is known by then
	if err := conn.SetDeadline(deadline); err != nil {
		return noAnswer, because(connReason(err), fmt.Errorf("channel %s: the connection to the mail server %s: %s", c.Name, server, talk.netReason(err)))
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()

	client, err := smtp.NewClient(conn, c.Host)
	if err != nil {
		return talk.failed("greeted", err)
	}
	if err := client.Hello(d.hello); err != nil {
		return talk.failed("answered EHLO", err)
	}
	if c.MailTLS() == TLSStartTLS {
		if ok, _ := client.Extension("STARTTLS"); !ok {
			return answered, because(ReasonMailNoSTARTTLS, fmt.Errorf("channel %s: the mail server %s does not offer STARTTLS, which the channel requires (tls: starttls, the default): "+
				"check host and port; for a server that speaks TLS from the start write tls: implicit (port 465)", c.Name, server))
		}
		if err := client.StartTLS(config); err != nil {
			return talk.failed("answered STARTTLS", err)
		}
	}
	if c.Username != "" {
		ok, offered := client.Extension("AUTH")
		if !ok {
			return answered, because(ReasonMailNoLogin, fmt.Errorf("channel %s: the mail server %s offers no login (AUTH) on this connection; check host and port, or remove username and passwordSecret for a server that takes mail without a login", c.Name, server))
		}
		auth, mech := pickAuth(offered, c.Username, sec[c.PasswordSecret], c.Host)
		if auth == nil {
			return answered, because(ReasonMailNoLogin, fmt.Errorf("channel %s: the mail server %s offers the logins %q, none of them PLAIN or LOGIN, the ones QingLong speaks", c.Name, server, offered))
		}
		if err := client.Auth(auth); err != nil {
			return talk.failed(fmt.Sprintf("answered the login of %q (AUTH %s)", c.Username, mech), err)
		}
	}
	if err := client.Mail(msg.From); err != nil {
		return talk.failed("answered MAIL FROM:<"+msg.From+">", err)
	}
	for _, to := range msg.To {
		if err := client.Rcpt(to); err != nil {
			return talk.failed("answered RCPT TO:<"+to+">", err)
		}
	}
	w, err := client.Data()
	if err != nil {
		return talk.failed("answered DATA", err)
	}
	if _, err := w.Write(msg.Message); err != nil {
		return talk.failed("took the message", err)
	}
	if err := w.Close(); err != nil {
		return talk.failed("answered the end of the message", err)
	}
	// The server has the message: a QUIT that fails changes nothing.
	_ = client.Quit()
	return answered, nil
}

// smtpTalk words a failed step of one SMTP conversation.
type smtpTalk struct {
	channel, server, passwordSecret string
	// mask hides the channel's password in a reply that repeats it.
	mask secretMask
	// timeout is the delivery timeout, the whole conversation's bound.
	timeout time.Duration
}

// failed is the outcome of a step the server did not pass: a reply of
// its (a 4xx temporary refusal, a 5xx permanent one, both quoted), or
// none (the connection failed or fell silent).
func (t smtpTalk) failed(step string, err error) (reach, error) {
	var reply *textproto.Error
	if why, ok := tlsFailure(err); ok {
		return noAnswer, because(ReasonTLSFailed, fmt.Errorf("channel %s: TLS with the mail server %s failed: %s", t.channel, t.server, why))
	}
	if !errors.As(err, &reply) {
		return noAnswer, because(connReason(err), fmt.Errorf("channel %s: the mail server %s never %s: %s", t.channel, t.server, step, t.netReason(err)))
	}
	said := t.mask.saying([]byte(reply.Msg))
	hint := ""
	login := strings.HasPrefix(step, "answered the login")
	if login {
		hint = fmt.Sprintf("; check username and the password in secret %q", t.passwordSecret)
	}
	if reply.Code >= 500 {
		reason := ReasonMailRefused
		if login {
			reason = ReasonMailLoginRefused
		}
		return answered, because(reason, fmt.Errorf("channel %s: the mail server %s refused: it %s with %d%s%s", t.channel, t.server, step, reply.Code, said, hint))
	}
	return answered, because(ReasonMailRefusedForNow,
		fmt.Errorf("channel %s: the mail server %s refused for now: it %s with %d, a temporary refusal%s%s", t.channel, t.server, step, reply.Code, said, hint))
}

// tlsFailure says why a TLS handshake failed, and what to check when
// the server's certificate is what it refused; ok is false for a failure
// of another kind.
func tlsFailure(err error) (why string, ok bool) {
	var (
		verify *tls.CertificateVerificationError
		alert  tls.AlertError
		record tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &verify):
		return fmt.Sprintf("%v; its certificate must be valid for host and signed by an authority this machine trusts", verify.Err), true
	case errors.As(err, &alert), errors.As(err, &record):
		return err.Error(), true
	}
	return "", false
}

// netReason names a connection's failure. A deadline passed is the
// delivery timeout, said with its length: "timed out" alone reads as the
// server's own refusal, and leaves a reader to guess what it was given.
func (t smtpTalk) netReason(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("no answer within %s, the delivery timeout: the whole conversation with the mail server, from its greeting to its 250 after the message, must end within it", t.timeout)
	}
	return err.Error()
}

// pickAuth is the login the server offers that QingLong speaks, PLAIN
// before LOGIN, and its name; nil when it offers neither.
func pickAuth(offered, username, password, host string) (smtp.Auth, string) {
	mechs := strings.Fields(strings.ToUpper(offered))
	switch {
	case contains(mechs, "PLAIN"):
		return smtp.PlainAuth("", username, password, host), "PLAIN"
	case contains(mechs, "LOGIN"):
		return &loginAuth{username: username, password: password}, "LOGIN"
	}
	return nil, ""
}

// loginAuth is AUTH LOGIN, which servers that offer no PLAIN (Outlook's
// among them) take: the user name, then the password, each asked for in
// turn. Like net/smtp's PLAIN, it sends them only over TLS.
type loginAuth struct {
	username, password string
	answered           int
}

func (a *loginAuth) Start(server *smtp.ServerInfo) (string, []byte, error) {
	if !server.TLS {
		return "", nil, errors.New("the connection is not encrypted, so the password is not sent")
	}
	return "LOGIN", nil, nil
}

func (a *loginAuth) Next(_ []byte, more bool) ([]byte, error) {
	if !more {
		return nil, nil
	}
	a.answered++
	switch a.answered {
	case 1:
		return []byte(a.username), nil
	case 2:
		return []byte(a.password), nil
	}
	return nil, errors.New("the server asked for more than a user name and a password (AUTH LOGIN)")
}
