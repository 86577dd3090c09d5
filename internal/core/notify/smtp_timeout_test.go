package notify

import (
	"net"
	"net/http"
	"testing"
	"time"
)

// A mail server that falls silent fails the attempt with how long the
// whole conversation had, not a bare "timed out", which reads as its own
// refusal: one that never greets, and one that greets and never answers
// EHLO, each a local listener that accepts and then says nothing more.
func TestAMailServerThatDoesNotAnswerFailsSayingTheTimeoutItHad(t *testing.T) {
	t.Parallel()
	for _, silent := range []struct{ greeting, step string }{
		{"", "greeted"},
		{"220 mail.example.com ESMTP\r\n", "answered EHLO"},
	} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		release := make(chan struct{})
		go func() {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			defer conn.Close()
			_, _ = conn.Write([]byte(silent.greeting))
			<-release
		}()
		addr := ln.Addr().(*net.TCPAddr)
		c := Channel{Name: "mail", Kind: Email, Host: addr.IP.String(), Port: addr.Port, From: "ql@example.com", To: []string{"ops@example.com"}, TLS: TLSNone}
		r, err := NewDeliverer(DeliveryConfig{Client: &http.Client{Timeout: 150 * time.Millisecond}}).send(t.Context(), mailMessage(c))
		close(release)
		_ = ln.Close()
		want := "channel mail: the mail server " + ln.Addr().String() + " never " + silent.step + ": no answer within 150ms, the delivery timeout: " +
			"the whole conversation with the mail server, from its greeting to its 250 after the message, must end within it"
		if err == nil || err.Error() != want || r != noAnswer {
			t.Errorf("send to a server that never %s: %v, %v; want no answer and %q", silent.step, r, err, want)
		}
	}
}
