package notify

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
)

// A channel's URL is written by a project's admin, who may be bound to
// one project; on a cluster its tasks run on workers, and what only a
// replica reaches (its cloud's metadata service at a link-local address,
// the services listening on its loopback) must stay out of that admin's
// reach through a notification: a replica connects no delivery to a
// link-local or unspecified address, nor to loopback unless it was told
// to, named or resolved, a webhook's nor a mail server's, and says why;
// a single node still does.
func TestAClusterReplicaSendsNoNotificationToItsLoopbackOrALinkLocalAddress(t *testing.T) {
	var reached atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) }))
	defer srv.Close()
	byName := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	unspecified := strings.Replace(srv.URL, "127.0.0.1", "0.0.0.0", 1)
	replica := NewDeliverer(DeliveryConfig{RefuseLinkLocal: true, RefuseLoopback: true})
	for u, says := range map[string]string{srv.URL: "--notify-loopback", byName: "--notify-loopback", unspecified: "a link-local or unspecified address"} {
		trial := replica.Try(t.Context(), "p1", "shop", Channel{Name: "ops", Kind: Webhook, URL: u})
		if trial.Delivered || trial.Failure.Reason != ReasonMisconfigured || !strings.Contains(trial.Failure.Text, says) {
			t.Errorf("a replica's test message to %s: %+v; want refused as misconfigured, saying %q", u, trial, says)
		}
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the receiver on the replica's loopback got %d requests; want none", n)
	}
	// A mail server there too: a loopback service spoken to in SMTP.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int64
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			_ = conn.Close()
		}
	}()
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	mail := Channel{Name: "relay", Kind: Email, Host: "127.0.0.1", Port: port, TLS: TLSNone, From: "ql@example.com", To: []string{"ops@example.com"}}
	if trial := replica.Try(t.Context(), "p1", "shop", mail); trial.Delivered || trial.Failure.Reason != ReasonMisconfigured || !strings.Contains(trial.Failure.Text, "--notify-loopback") {
		t.Errorf("a replica's test message to the mail server 127.0.0.1:%d: %+v; want refused as misconfigured, naming --notify-loopback", port, trial)
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("the mail server on the replica's loopback was connected %d times; want none", n)
	}
	// The dialer's check runs before anything is sent, so these addresses
	// are only checked here, never connected to.
	rule := addressRule{linkLocal: true, loopback: true}
	for _, a := range []string{"169.254.169.254", "fe80::1", "0.0.0.0", "::", "::ffff:169.254.169.254", "ff02::1", "::1", "127.0.0.2", "::ffff:127.0.0.1"} {
		if rule.refused(netip.MustParseAddr(a)) == nil {
			t.Errorf("a connection to %s is allowed; want refused", a)
		}
	}
	for _, a := range []string{"10.0.0.5", "192.168.1.2", "172.16.0.1", "fd00::5", "93.184.216.34"} {
		if err := rule.refused(netip.MustParseAddr(a)); err != nil {
			t.Errorf("a connection to %s is refused (%v); want allowed: receivers on the network have such addresses", a, err)
		}
	}
	loopbackAllowed := NewDeliverer(DeliveryConfig{RefuseLinkLocal: true})
	if trial := loopbackAllowed.Try(t.Context(), "p1", "shop", Channel{Name: "ops", Kind: Webhook, URL: srv.URL}); !trial.Delivered || reached.Load() != 1 {
		t.Fatalf("a test message of a replica started with --notify-loopback to %s: %+v; want delivered", srv.URL, trial)
	}
	single := NewDeliverer(DeliveryConfig{})
	if trial := single.Try(t.Context(), "p1", "shop", Channel{Name: "ops", Kind: Webhook, URL: unspecified}); !trial.Delivered || reached.Load() != 2 {
		t.Fatalf("a single node's test message to %s: %+v; want delivered", unspecified, trial)
	}
}
