// Package smtptest is an SMTP server for tests. It listens on a real TCP
// port of the loopback and speaks mail submission far enough for a client
// to deliver a message (EHLO, STARTTLS or TLS from the first byte, AUTH
// PLAIN and LOGIN, MAIL, RCPT, DATA, RSET, NOOP, QUIT), recording what
// each connection said, so a test checks the login, the envelope and the
// message as a server received them. Its replies can refuse any step.
package smtptest

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/tlstest"
)

// Config is how a Server behaves.
type Config struct {
	// Implicit speaks TLS from the first byte (port 465's way); else the
	// connection starts in plain text and offers STARTTLS, unless
	// NoStartTLS.
	Implicit   bool
	NoStartTLS bool
	// Auth are the login mechanisms offered once the connection is
	// encrypted ("PLAIN LOGIN"); "" offers none and takes mail without a
	// login.
	Auth string
	// Users are the logins taken, user → password; when there are any,
	// MAIL before a login is refused.
	Users map[string]string
	// Replies replace the server's reply to a step with the line given
	// ("550 5.7.1 not allowed"): GREETING, EHLO, STARTTLS, AUTH, MAIL,
	// RCPT, DATA (the command) and END (the message's end). "RCPT <addr>"
	// replies so to that recipient only.
	Replies map[string]string
	// Mute accepts connections and never says a word.
	Mute bool
}

// Session is what one connection said.
type Session struct {
	// Hello is the name the client gave in EHLO (or HELO).
	Hello string
	// Commands are the verbs of the commands, in order; a login's answers
	// are left out.
	Commands []string
	// Mechanism, User and Password are the login given, and LoginTLS
	// whether the connection was encrypted when it was.
	Mechanism, User, Password string
	LoginTLS                  bool
	// TLS is whether the connection was encrypted when MAIL was given.
	TLS bool
	// From and To are the envelope of the last message.
	From string
	To   []string
	// Message is the last message as received (dots unstuffed, CRLF
	// lines), set once its end was answered 250.
	Message []byte
}

// Server is a running SMTP server.
type Server struct {
	// Host and Port are where it listens (127.0.0.1).
	Host string
	Port int
	// Roots trust its certificate, for 127.0.0.1 and localhost.
	Roots *x509.CertPool

	cfg      Config
	tls      *tls.Config
	ln       net.Listener
	wg       sync.WaitGroup
	mu       sync.Mutex
	sessions []*Session
	conns    map[net.Conn]bool
}

// Start starts a server that t's cleanup stops.
func Start(t testing.TB, cfg Config) *Server {
	t.Helper()
	serverTLS, roots := tlstest.Pair(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Replies = maps.Clone(cfg.Replies)
	s := &Server{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, Roots: roots, cfg: cfg, ln: ln,
		tls: serverTLS, conns: map[net.Conn]bool{}}
	s.wg.Go(s.serve)
	t.Cleanup(s.stop)
	return s
}

// Sessions are the connections' sessions so far, in the order they came.
func (s *Server) Sessions() []Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Session, len(s.sessions))
	for i, p := range s.sessions {
		out[i] = *p
		out[i].Commands = append([]string(nil), p.Commands...)
		out[i].To = append([]string(nil), p.To...)
	}
	return out
}

// Messages are the messages the server took, in the order it took them.
func (s *Server) Messages() []Session {
	var out []Session
	for _, se := range s.Sessions() {
		if se.Message != nil {
			out = append(out, se)
		}
	}
	return out
}

func (s *Server) stop() {
	_ = s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *Server) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = true
		se := &Session{}
		s.sessions = append(s.sessions, se)
		s.mu.Unlock()
		s.wg.Go(func() {
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				_ = c.Close()
			}()
			_ = c.SetDeadline(time.Now().Add(time.Minute))
			s.talk(c, se)
		})
	}
}

// conn is one connection's reading and writing, swapped for TLS's on
// STARTTLS.
type conn struct {
	raw       net.Conn
	r         *bufio.Reader
	encrypted bool
}

func (c *conn) reply(line string) error {
	_, err := fmt.Fprintf(c.raw, "%s\r\n", line)
	return err
}

func (c *conn) line() (string, error) {
	l, err := c.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	if !strings.HasSuffix(l, "\r\n") {
		return "", errors.New("a line not ended by CRLF")
	}
	return strings.TrimSuffix(l, "\r\n"), nil
}

func (s *Server) talk(raw net.Conn, se *Session) {
	c := &conn{raw: raw, r: bufio.NewReader(raw)}
	if s.cfg.Mute {
		_, _ = c.r.ReadByte()
		return
	}
	if s.cfg.Implicit {
		t := tls.Server(raw, s.tls)
		if t.Handshake() != nil {
			return
		}
		c = &conn{raw: t, r: bufio.NewReader(t), encrypted: true}
	}
	if c.reply(s.said("GREETING", "220 smtptest ESMTP")) != nil {
		return
	}
	authed := false
	for {
		l, err := c.line()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(l, " ")
		verb = strings.ToUpper(verb)
		s.record(func() { se.Commands = append(se.Commands, verb) })
		var out string
		switch verb {
		case "EHLO", "HELO":
			s.record(func() { se.Hello = arg })
			out = s.ehlo(c)
		case "STARTTLS":
			if c.encrypted || s.cfg.NoStartTLS || s.cfg.Implicit {
				out = "503 5.5.1 STARTTLS not offered"
				break
			}
			if r, ok := s.reply("STARTTLS"); ok {
				out = r
				break
			}
			if c.reply("220 2.0.0 ready to start TLS") != nil {
				return
			}
			t := tls.Server(raw, s.tls)
			if t.Handshake() != nil {
				return
			}
			c = &conn{raw: t, r: bufio.NewReader(t), encrypted: true}
			continue
		case "AUTH":
			if !c.encrypted || s.cfg.Auth == "" {
				out = "503 5.5.1 AUTH not offered"
				break
			}
			var ok bool
			if out, ok = s.auth(c, se, arg); ok {
				authed = true
			}
		case "MAIL":
			from, ok := envelope(arg, "FROM:")
			switch {
			case !ok:
				out = "501 5.5.4 syntax: MAIL FROM:<address>"
			case len(s.cfg.Users) > 0 && !authed:
				out = "530 5.7.0 authentication required"
			default:
				out = s.said("MAIL", "250 2.1.0 ok")
				if out[0] == '2' {
					s.record(func() { se.From, se.To, se.TLS = from, nil, c.encrypted })
				}
			}
		case "RCPT":
			to, ok := envelope(arg, "TO:")
			switch {
			case !ok:
				out = "501 5.5.4 syntax: RCPT TO:<address>"
			default:
				out = s.said("RCPT", "250 2.1.5 ok")
				if r, ok := s.reply("RCPT " + to); ok {
					out = r
				}
				if out[0] == '2' {
					s.record(func() { se.To = append(se.To, to) })
				}
			}
		case "DATA":
			if out = s.said("DATA", "354 end with <CRLF>.<CRLF>"); out[0] != '3' {
				break
			}
			if c.reply(out) != nil {
				return
			}
			msg, err := c.data()
			if err != nil {
				return
			}
			if out = s.said("END", "250 2.0.0 queued"); out[0] == '2' {
				s.record(func() { se.Message = msg })
			}
		case "RSET":
			s.record(func() { se.From, se.To = "", nil })
			out = "250 2.0.0 ok"
		case "NOOP":
			out = "250 2.0.0 ok"
		case "QUIT":
			_ = c.reply("221 2.0.0 bye")
			return
		default:
			out = "502 5.5.2 command not recognised"
		}
		if c.reply(out) != nil {
			return
		}
	}
}

func (s *Server) record(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

// said is the reply to step: the one Config gives, else def.
func (s *Server) said(step, def string) string {
	if r, ok := s.reply(step); ok {
		return r
	}
	return def
}

// reply is the reply Config gives to step, if any.
func (s *Server) reply(step string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.cfg.Replies[step]
	return r, ok
}

// Reply sets the server's reply to step from now on, as Config.Replies
// does; "" gives the step its usual reply again.
func (s *Server) Reply(step, line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if line == "" {
		delete(s.cfg.Replies, step)
		return
	}
	if s.cfg.Replies == nil {
		s.cfg.Replies = map[string]string{}
	}
	s.cfg.Replies[step] = line
}

func (s *Server) ehlo(c *conn) string {
	if r, ok := s.reply("EHLO"); ok {
		return r
	}
	lines := []string{"smtptest", "8BITMIME"}
	if !c.encrypted && !s.cfg.NoStartTLS && !s.cfg.Implicit {
		lines = append(lines, "STARTTLS")
	}
	if c.encrypted && s.cfg.Auth != "" {
		lines = append(lines, "AUTH "+s.cfg.Auth)
	}
	var b strings.Builder
	for i, l := range lines {
		sep := "-"
		if i == len(lines)-1 {
			sep = " "
		}
		fmt.Fprintf(&b, "250%s%s", sep, l)
		if i < len(lines)-1 {
			b.WriteString("\r\n")
		}
	}
	return b.String()
}

// auth takes one login, PLAIN (with or without its initial answer) or
// LOGIN, and says whether it was taken.
func (s *Server) auth(c *conn, se *Session, arg string) (string, bool) {
	mech, initial, _ := strings.Cut(arg, " ")
	mech = strings.ToUpper(mech)
	if !strings.Contains(" "+strings.ToUpper(s.cfg.Auth)+" ", " "+mech+" ") {
		return "504 5.5.4 mechanism not offered", false
	}
	ask := func(prompt string) (string, bool) {
		if c.reply("334 "+prompt) != nil {
			return "", false
		}
		l, err := c.line()
		if err != nil || l == "*" {
			return "", false
		}
		return l, true
	}
	decode := func(s string) (string, bool) {
		b, err := base64.StdEncoding.DecodeString(s)
		return string(b), err == nil
	}
	var user, password string
	switch mech {
	case "PLAIN":
		if initial == "" {
			var ok bool
			if initial, ok = ask(""); !ok {
				return "501 5.7.0 login cancelled", false
			}
		}
		creds, ok := decode(initial)
		parts := strings.Split(creds, "\x00")
		if !ok || len(parts) != 3 {
			return "501 5.5.2 cannot decode the login", false
		}
		user, password = parts[1], parts[2]
	case "LOGIN":
		u, ok1 := ask(base64.StdEncoding.EncodeToString([]byte("Username:")))
		p, ok2 := ask(base64.StdEncoding.EncodeToString([]byte("Password:")))
		var ok3, ok4 bool
		user, ok3 = decode(u)
		password, ok4 = decode(p)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return "501 5.5.2 cannot decode the login", false
		}
	}
	s.record(func() { se.Mechanism, se.User, se.Password, se.LoginTLS = mech, user, password, c.encrypted })
	if r, ok := s.reply("AUTH"); ok {
		return r, r[0] == '2'
	}
	if want, ok := s.cfg.Users[user]; !ok || want != password {
		return "535 5.7.8 username and password not accepted", false
	}
	return "235 2.7.0 authenticated", true
}

// data reads a message up to its lone dot, unstuffing leading dots.
func (c *conn) data() ([]byte, error) {
	var b bytes.Buffer
	for {
		l, err := c.line()
		if err != nil {
			return nil, err
		}
		if l == "." {
			return b.Bytes(), nil
		}
		b.WriteString(strings.TrimPrefix(l, "."))
		b.WriteString("\r\n")
	}
}

// envelope reads "FROM:<address> params" (or TO:), the address alone.
func envelope(arg, prefix string) (string, bool) {
	if len(arg) < len(prefix) || !strings.EqualFold(arg[:len(prefix)], prefix) {
		return "", false
	}
	rest := strings.TrimSpace(arg[len(prefix):])
	if !strings.HasPrefix(rest, "<") {
		return "", false
	}
	end := strings.IndexByte(rest, '>')
	if end < 0 {
		return "", false
	}
	return rest[1:end], true
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }
