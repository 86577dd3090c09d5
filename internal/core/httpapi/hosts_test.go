package httpapi

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// A server on every interface answers a request whose Host is the IP
// address its connection reached (curl https://192.0.2.2:P/ of a server
// on 0.0.0.0), with or without the port, IPv4 reached over an IPv6
// socket too: a rebinding page sends its own name, never that address.
// A name, or another address, is still refused, the message naming the
// host without its port, as --allowed-hosts takes it.
func TestAServerAnswersTheIPAddressItWasReachedAtAndNamesARefusedHostAsAllowedHostsTakesIt(t *testing.T) {
	t.Parallel()
	h, tokens := walkHandler(t, Config{AllowedHosts: DefaultAllowedHosts("0.0.0.0:8080", nil)})
	send := func(host string, local net.Addr) (int, string) {
		req := httptest.NewRequest("GET", "/api/v1/runs", nil)
		req.Host = host
		req.Header.Set("Authorization", "Bearer "+tokens[apitoken.Admin])
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var b struct{ Error struct{ Message string } }
		_ = json.Unmarshal(rec.Body.Bytes(), &b)
		return rec.Code, b.Error.Message
	}
	v4 := &net.TCPAddr{IP: net.ParseIP("192.0.2.2"), Port: 8080}
	mapped := &net.TCPAddr{IP: net.ParseIP("::ffff:192.0.2.2"), Port: 8080}
	v6 := &net.TCPAddr{IP: net.ParseIP("2001:db8::2"), Port: 8080}
	for _, c := range []struct {
		host  string
		local net.Addr
	}{{"192.0.2.2:8080", v4}, {"192.0.2.2", v4}, {"192.0.2.2:8080", mapped}, {"[2001:db8::2]:8080", v6}} {
		if st, msg := send(c.host, c.local); st != http.StatusOK {
			t.Errorf("Host %s reached at %s: %d %s; want it answered", c.host, c.local, st, msg)
		}
	}
	for _, c := range []struct {
		host, named string
		local       net.Addr
	}{{"evil.example:8080", "evil.example", v4}, {"192.0.2.3:8080", "192.0.2.3", v4}, {"[2001:db8::3]:8080", "2001:db8::3", v6}} {
		st, msg := send(c.host, c.local)
		if st != http.StatusMisdirectedRequest || !strings.HasPrefix(msg, `host "`+c.named+`" is not one this server answers to`) ||
			!strings.Contains(msg, "--allowed-hosts "+c.named+";") {
			t.Errorf("Host %s reached at %s: %d %q; want 421 naming %s as --allowed-hosts takes it", c.host, c.local, st, msg, c.named)
		}
	}
}
