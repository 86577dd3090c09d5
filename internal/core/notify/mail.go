package notify

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// An email channel's TLS modes.
const (
	// TLSStartTLS connects in plain text and requires STARTTLS before
	// anything else is said: the submission port's way (587), and the
	// default on any port but 465.
	TLSStartTLS = "starttls"
	// TLSImplicit speaks TLS from the first byte (SMTPS, port 465), the
	// default on port 465.
	TLSImplicit = "implicit"
	// TLSNone sends in plain text, for a relay that takes mail without a
	// login (on the machine or on a network the operator trusts): a
	// channel in this mode may not log in, as its password would cross
	// the network readable.
	TLSNone = "none"
)

// TLSModes lists every TLS mode of an email channel.
var TLSModes = []string{TLSStartTLS, TLSImplicit, TLSNone}

// The default ports of the TLS modes.
const (
	PortSubmission = 587
	PortImplicit   = 465
	PortRelay      = 25
)

// Limits of an email channel.
const (
	MaxRecipients  = 20
	maxHostLen     = 253
	maxAddressLen  = 320
	maxUsernameLen = 256
)

var hostName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$`)

// MailTLS is the channel's TLS mode: as written, else implicit on port
// 465 and starttls on any other.
func (c Channel) MailTLS() string {
	switch {
	case c.TLS != "":
		return c.TLS
	case c.Port == PortImplicit:
		return TLSImplicit
	}
	return TLSStartTLS
}

// MailPort is the channel's port: as written, else its TLS mode's.
func (c Channel) MailPort() int {
	if c.Port != 0 {
		return c.Port
	}
	switch c.MailTLS() {
	case TLSImplicit:
		return PortImplicit
	case TLSNone:
		return PortRelay
	}
	return PortSubmission
}

// mailField is the first of an email channel's fields c sets, "" when
// none.
func (c Channel) mailField() string {
	for _, f := range []struct {
		key string
		set bool
	}{{"host", c.Host != ""}, {"port", c.Port != 0}, {"tls", c.TLS != ""}, {"from", c.From != ""}, {"to", len(c.To) > 0},
		{"username", c.Username != ""}, {"passwordSecret", c.PasswordSecret != ""}} {
		if f.set {
			return f.key
		}
	}
	return ""
}

// validateMail checks an email channel's server, addresses and login, and
// reports every part that is wrong at once (errors.Join, each with its
// reason): someone fixing a file would otherwise meet its mistakes one
// apply at a time.
func (c Channel) validateMail(field string) error {
	return errors.Join(c.checkMailServer(field), checkAddress(field+".from", c.From), c.checkMailRecipients(field), c.checkMailLogin(field))
}

// checkMailServer checks host, port and tls.
func (c Channel) checkMailServer(field string) error {
	switch {
	case c.Host == "":
		return qlerror.New(qlerror.Invalid, "%s.host: is required for email (the SMTP server's name, like smtp.example.com)", field).
			Because(validate.RefusalRequired, "field", field+".host")
	case !validHost(c.Host):
		return qlerror.New(qlerror.Invalid, "%s.host: %q is not a host name or IP address; write the server's name alone, like smtp.example.com, and its port in port", field, c.Host).
			Because(RefusalMailHost, "field", field+".host", "value", c.Host)
	case c.Port < 0 || c.Port > 65535:
		return qlerror.New(qlerror.Invalid, "%s.port: %d is outside 1 … 65535", field, c.Port).
			Because(validate.RefusalOutOfRange, "field", field+".port", "value", c.Port, "min", 1, "max", 65535)
	case c.TLS != "" && !contains(TLSModes, c.TLS):
		return qlerror.New(qlerror.Invalid, "%s.tls: %q is not one of %s", field, c.TLS, strings.Join(TLSModes, ", ")).
			Because(validate.RefusalNotOneOf, "field", field+".tls", "value", c.TLS, "allowed", strings.Join(TLSModes, ", "))
	case c.Port == PortImplicit && c.MailTLS() != TLSImplicit:
		return qlerror.New(qlerror.Invalid, "%s.port: port 465 speaks TLS from its first byte; write tls: implicit (or leave tls out), or the port the server offers %s on", field, c.TLS).
			Because(RefusalMailPortTLS, "field", field+".port", "value", c.TLS)
	}
	return nil
}

// checkMailRecipients checks to: each address, none twice.
func (c Channel) checkMailRecipients(field string) error {
	switch {
	case len(c.To) == 0:
		return qlerror.New(qlerror.Invalid, "%s.to: is required for email (one address, or a list of them)", field).
			Because(validate.RefusalRequired, "field", field+".to")
	case len(c.To) > MaxRecipients:
		return qlerror.New(qlerror.Invalid, "%s.to: %d addresses, the limit is %d; send to a mailing list instead", field, len(c.To), MaxRecipients).
			Because(validate.RefusalTooMany, "field", field+".to", "count", len(c.To), "limit", MaxRecipients)
	}
	seen := map[string]bool{}
	for i, to := range c.To {
		f := fmt.Sprintf("%s.to[%d]", field, i)
		if err := checkAddress(f, to); err != nil {
			return err
		}
		a, _ := mail.ParseAddress(to)
		addr := strings.ToLower(a.Address)
		if seen[addr] {
			return qlerror.New(qlerror.Invalid, "%s: %q is given twice", f, a.Address).Because(validate.RefusalGivenTwice, "field", field+".to", "value", a.Address)
		}
		seen[addr] = true
	}
	return nil
}

// checkMailLogin checks username and passwordSecret. A username is sent
// in the AUTH command's line: a CR or LF in it would end that line and
// start another command, so it is refused as from and to refuse theirs.
func (c Channel) checkMailLogin(field string) error {
	switch {
	case (c.Username == "") != (c.PasswordSecret == ""):
		key := map[bool]string{true: "username", false: "passwordSecret"}[c.Username == ""]
		return qlerror.New(qlerror.Invalid, "%s.%s: give username and passwordSecret together (the login and the name of the secret holding its password), or neither for a server that takes mail without a login", field, key).
			Because(RefusalMailLogin, "field", field+"."+key)
	case c.Username != "" && c.MailTLS() == TLSNone:
		return qlerror.New(qlerror.Invalid, "%s.username: a channel of tls: none does not log in, as the password would cross the network unencrypted; use tls: starttls or implicit, or a relay that takes mail without a login", field).
			Because(RefusalMailPlainLogin, "field", field+".username")
	case len(c.Username) > maxUsernameLen:
		return qlerror.New(qlerror.Invalid, "%s.username: %d characters, the limit is %d", field, len(c.Username), maxUsernameLen).
			Because(validate.RefusalTooLong, "field", field+".username", "size", len(c.Username), "limit", maxUsernameLen)
	case strings.ContainsRune(c.Username, 0):
		return qlerror.New(qlerror.Invalid, "%s.username: contains a NUL byte; remove it", field).Because(validate.RefusalNULByte, "field", field+".username")
	case strings.ContainsAny(c.Username, "\r\n"):
		return qlerror.New(qlerror.Invalid, "%s.username: contains a line break; write the login on one line", field).
			Because(RefusalMailUsernameLine, "field", field+".username")
	}
	return nil
}

func validHost(h string) bool {
	return len(h) <= maxHostLen && (hostName.MatchString(h) || net.ParseIP(h) != nil)
}

// checkAddress accepts one mail address, with or without a display name
// ("QingLong <ql@example.com>"), whose address itself is ASCII: an
// address of other characters needs SMTPUTF8, which many servers lack.
func checkAddress(field, s string) error {
	refuse := func(why string) error {
		return qlerror.New(qlerror.Invalid, "%s: %q is not a mail address%s; write one like ops@example.com or \"QingLong <ql@example.com>\"", field, s, why).
			Because(RefusalMailAddress, "field", field, "value", s)
	}
	if s == "" {
		return qlerror.New(qlerror.Invalid, "%s: is required for email (an address like ql@example.com)", field).Because(validate.RefusalRequired, "field", field)
	}
	if len(s) > maxAddressLen {
		return refuse(fmt.Sprintf(" (%d characters, the limit is %d)", len(s), maxAddressLen))
	}
	a, err := mail.ParseAddress(s)
	if err != nil {
		return refuse("")
	}
	for _, r := range a.Address {
		if r >= utf8.RuneSelf {
			return refuse(" QingLong can send to (only ASCII addresses: the display name may be of any characters)")
		}
	}
	return nil
}

// Mail is one email delivery: its envelope and its message, whose lines
// end in CRLF.
type Mail struct {
	From    string
	To      []string
	Message []byte
}

// BuildMail renders m as an email. Like Build's bodies it depends only on
// the row, so every delivery of one notification is the same message:
// its Message-ID is derived from the notification's id, for receivers to
// drop a repeat, and its Date is when the notification was created (now
// for a row that does not say), in the channel's zone (mailDate).
func BuildMail(m Message, now time.Time) (Mail, error) {
	c := m.Channel
	from, err := mail.ParseAddress(c.From)
	if err != nil {
		return Mail{}, fmt.Errorf("channel %s: from %q is not a mail address", c.Name, c.From)
	}
	out := Mail{From: from.Address}
	to := make([]string, len(c.To))
	for i, s := range c.To {
		a, err := mail.ParseAddress(s)
		if err != nil {
			return Mail{}, fmt.Errorf("channel %s: to %q is not a mail address", c.Name, s)
		}
		out.To = append(out.To, a.Address)
		to[i] = a.String()
	}
	date := now
	if m.CreatedAtMs != 0 {
		date = time.UnixMilli(m.CreatedAtMs)
	}
	domain := from.Address[strings.LastIndexByte(from.Address, '@')+1:]
	w := c.wording()
	title, text := w.title(m.Payload), w.text(m.Payload)
	var b bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", from.String())
	header("To", strings.Join(to, ",\r\n "))
	header("Subject", encodeHeader(title))
	header("Date", w.mailDate(date))
	header("Message-ID", "<"+m.ID+"@"+domain+">")
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	header("Content-Transfer-Encoding", "quoted-printable")
	// Asks receivers not to answer it automatically (RFC 3834): an
	// out-of-office reply to a notification reaches nobody.
	header("Auto-Submitted", "auto-generated")
	header(HeaderEvent, string(m.Payload.Event))
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write([]byte(strings.ReplaceAll(title+"\n\n"+text+"\n", "\n", "\r\n"))); err != nil {
		return Mail{}, err
	}
	if err := qp.Close(); err != nil {
		return Mail{}, err
	}
	out.Message = b.Bytes()
	return out, nil
}

// mailDate is an email's Date header (RFC 5322, as RFC 1123 with a
// numeric zone writes it): in the channel's zone with its offset where it
// names one, so a mail reader that shows the header as written shows the
// channel's time; in UTC otherwise.
func (w wording) mailDate(t time.Time) string {
	if w.loc == nil {
		return t.UTC().Format(time.RFC1123Z)
	}
	return t.In(w.loc).Format(time.RFC1123Z)
}

// encodeHeader is s as a header's value: as it is when ASCII, else as
// RFC 2047 encoded words of UTF-8 (at most 75 characters each), each on a
// line of its own, so a long title in Chinese makes no line longer than a
// mail line should be.
func encodeHeader(s string) string {
	return strings.ReplaceAll(mime.BEncoding.Encode("utf-8", s), "?= =?", "?=\r\n =?")
}
