// Package netaddr says which hosts name only this machine. Every place that
// lets a credential or token travel over plain HTTP, or warns about a
// connection that does not verify its server, allows it for these hosts
// alone, so the rule has one spelling.
package netaddr

import "net"

// IsLoopbackHost reports whether host (without a port; IPv6 with or without
// brackets) names only this machine: "localhost" or a loopback IP. An
// empty host binds or reaches every interface, so it is not loopback.
func IsLoopbackHost(host string) bool {
	if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
