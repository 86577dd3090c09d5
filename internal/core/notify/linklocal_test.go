package notify

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A channel's URL is written by a project's admin, who may be bound to
// one project; on a cluster its tasks run on workers, and what only the
// replica's network reaches at a link-local address (its cloud's
// metadata service at 169.254.169.254) must stay out of its reach
// through a notification: a replica connects no delivery to a
// link-local or unspecified address (0.0.0.0 reaches the replica's own
// host) and says why, while a single node still does.
func TestAClusterReplicaSendsNoNotificationToALinkLocalOrUnspecifiedAddress(t *testing.T) {
	var reached atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) }))
	defer srv.Close()
	unspecified := strings.Replace(srv.URL, "127.0.0.1", "0.0.0.0", 1)
	replica := NewDeliverer(DeliveryConfig{RefuseLinkLocal: true})
	trial := replica.Try(t.Context(), "p1", "shop", Channel{Name: "ops", Kind: Webhook, URL: unspecified})
	if trial.Delivered || trial.Failure.Reason != ReasonMisconfigured || !strings.Contains(trial.Failure.Text, "a link-local or unspecified address") {
		t.Errorf("a replica's test message to %s: %+v; want refused as misconfigured, saying why", unspecified, trial)
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the receiver got %d requests through 0.0.0.0; want none", n)
	}
	// The dialer's check runs before any packet is sent, so these
	// addresses are only checked here, never connected to.
	for _, a := range []string{"169.254.169.254:80", "[fe80::1]:80", "0.0.0.0:80", "[::]:80", "[::ffff:169.254.169.254]:80", "[ff02::1]:80"} {
		if err := refuseLinkLocal("tcp", a, nil); err == nil {
			t.Errorf("a connection to %s is allowed; want refused", a)
		}
	}
	for _, a := range []string{"127.0.0.1:80", "10.0.0.5:80", "192.168.1.2:443", "[fd00::5]:80", "93.184.216.34:443"} {
		if err := refuseLinkLocal("tcp", a, nil); err != nil {
			t.Errorf("a connection to %s is refused (%v); want allowed: receivers have such addresses", a, err)
		}
	}
	single := NewDeliverer(DeliveryConfig{})
	if trial := single.Try(t.Context(), "p1", "shop", Channel{Name: "ops", Kind: Webhook, URL: unspecified}); !trial.Delivered || reached.Load() != 1 {
		t.Fatalf("a single node's test message to %s: %+v; want delivered", unspecified, trial)
	}
}
