package httpserve

import (
	"net"
	"strings"
)

// ConsoleURL is the address a browser on this machine opens the console
// at: a server bound to every interface (given as configured, which Go
// reports as [::] even for 0.0.0.0) is reached on loopback, which its
// Host check always accepts: 127.0.0.1, or ::1 where it was given an IPv6
// wildcard.
func ConsoleURL(addr, configured string, tls bool) string {
	scheme := "http"
	if tls {
		scheme = "https"
	}
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			loopback := "127.0.0.1"
			if given, _, err := net.SplitHostPort(configured); err == nil && strings.Contains(given, ":") {
				loopback = "::1"
			}
			addr = net.JoinHostPort(loopback, port)
		}
	}
	return scheme + "://" + addr + "/"
}
