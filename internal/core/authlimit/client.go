package authlimit

import "net/netip"

// ipv6Group is the prefix length one IPv6 client is counted by. An ISP
// hands a customer at least a /64 (RFC 6177), and any host in it may use
// every address of it at will (SLAAC privacy addresses change by the
// hour): keyed by the exact address, one client would get a fresh set of
// tries with each of its 2^64 addresses. An IPv4 address stays its own
// key: one is all most clients have.
const ipv6Group = 64

// Client is the key of the client at addr (an address without its port,
// as a throttle gets it): the address itself for IPv4 (an IPv4-mapped
// IPv6 address counts as its IPv4 one), its /64 for IPv6, written as
// the prefix (2001:db8:1:2::/64). Anything that is no address (a Unix
// socket's peer, a test's name) is its own key.
func Client(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = a.Unmap()
	if !a.Is6() {
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(ipv6Group) // a valid IPv6 address always has a /64
	return p.String()
}
