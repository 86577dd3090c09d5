package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// reachedByAddress reports whether r's Host is the IP address its
// connection reached this server at. The Host check guards against DNS
// rebinding: a page of evil.example whose name is made to resolve to this
// server sends Host: evil.example, a name. A browser sends an IP address
// as the Host only to a page served from that address, so one that is the
// address the connection came to is this server's own page, and a client
// such as curl given the machine's address (a server on 0.0.0.0 reached
// at 192.0.2.2) is answered without an --allowed-hosts entry per address.
func reachedByAddress(r *http.Request) bool {
	host, err := netip.ParseAddr(strings.Trim(hostOf(r.Host), "[]"))
	if err != nil {
		return false
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	ap, err := netip.ParseAddrPort(local.String())
	return err == nil && ap.Addr().Unmap() == host.Unmap()
}

// addressReached is the console's root at the address r's connection came
// to (http://192.0.2.2:8080/), which the server answers to whatever the
// Host allow-list; "" when the listener's address is unknown.
func addressReached(r *http.Request) string {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return ""
	}
	ap, err := netip.ParseAddrPort(local.String())
	if err != nil || ap.Addr().Unmap().IsUnspecified() {
		return ""
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()).String() + "/"
}

// hostOf is a Host header's host without its port, as --allowed-hosts
// takes it.
func hostOf(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return strings.Trim(host, "[]")
}

// hostRefused is the message of a request whose Host this server does not
// answer to, naming the host as --allowed-hosts takes it.
func hostRefused(host string) string {
	name := hostOf(host)
	return fmt.Sprintf("host %q is not one this server answers to (a guard against DNS rebinding): if it is this server's name, "+
		"start the server with --allowed-hosts %s; or reach the server at localhost or at the IP address it listens on", name, name)
}

// WildcardNote is what a server listening on addr says at its start when
// addr binds every interface, "" otherwise: other machines reach it by
// this machine's addresses, which it answers to, and by names, which it
// refuses (421) until --allowed-hosts names them; allowed are the names
// it answers to (the loopback names left unsaid).
func WildcardNote(addr string, allowed []string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return ""
	}
	var named []string
	for _, h := range allowed {
		if !slices.Contains(loopbackHosts, h) {
			named = append(named, h)
		}
	}
	if len(named) > 0 {
		return fmt.Sprintf("listening on every interface: requests are answered by localhost, by the IP address they reach and by the names of --allowed-hosts (%s)", strings.Join(named, ", "))
	}
	return "listening on every interface: requests are answered by localhost and by the IP address they reach; " +
		"a name other machines use for this one (ql.example.com) is refused until --allowed-hosts names it"
}
