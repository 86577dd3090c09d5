package notify

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/freeport"
)

// nxdomainServer answers every DNS query over UDP that the name does not
// exist (NXDOMAIN), as a resolver does for a mistyped host; it returns
// the address to send queries to.
func nxdomainServer(t *testing.T) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if n < 12 {
				continue
			}
			// The query's id and question, flagged as an authoritative
			// answer whose code is 3 (name error), with no records.
			answer := append([]byte{buf[0], buf[1], 0x85, 0x83, buf[4], buf[5], 0, 0, 0, 0, 0, 0}, buf[12:n]...)
			pc.WriteTo(answer, from) //nolint:errcheck // the resolver retries
		}
	}()
	return pc.LocalAddr().String()
}

// A receiver that cannot be reached fails the attempt saying why and
// where to look: the host that does not exist, or the address where
// nothing listens, and the URL to check — in the file, or in the secret
// that holds it, whose path is not shown.
func TestAnUnreachableReceiverSaysWhichPartOfTheURLToCheck(t *testing.T) {
	t.Parallel()
	dnsAddr := nxdomainServer(t)
	dialer := &net.Dialer{Resolver: &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp", dnsAddr)
	}}}
	client := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	refused := freeport.Refused(t)
	const token = "123456789:AAEhBP0av28tUsEr"
	d := NewDeliverer(DeliveryConfig{Client: client, Secrets: func([]string) (map[string]string, error) {
		return map[string]string{"hook_url": "http://" + refused + "/bot" + token + "/sendMessage"}, nil
	}})
	for _, c := range []struct {
		ch   Channel
		want string
	}{
		{Channel{Name: "hook", Kind: Webhook, URL: "http://hooks.example.invalid/qinglong"},
			"channel hook: request failed: the host hooks.example.invalid does not exist (DNS: no such host); check the host in the channel's url"},
		{Channel{Name: "hook", Kind: Webhook, URL: "http://" + refused + "/qinglong"},
			"channel hook: request failed: " + refused + " refused the connection: nothing listens there; check the host and port in the channel's url, and that the receiver is running"},
		{Channel{Name: "tg", Kind: Telegram, URLSecret: "hook_url", ChatID: "-100"},
			"channel tg: request failed: " + refused + ` refused the connection: nothing listens there; check the host and port in the URL in secret "hook_url", and that the receiver is running`},
	} {
		m := Message{ID: "n1", Event: OnFailed, Channel: c.ch, Payload: Payload{ID: "n1", Event: OnFailed, Project: "shop"}}
		r, err := d.send(t.Context(), m)
		if err == nil || err.Error() != c.want || r != noAnswer || strings.Contains(err.Error(), token) {
			t.Errorf("%s: %v, %v; want no answer and %q", c.ch.Name, r, err, c.want)
		}
	}
}
