package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// ParseTrustedProxies reads the reverse proxies whose X-Forwarded-For
// header the server believes (--trusted-proxies): addresses or CIDR
// prefixes.
func ParseTrustedProxies(list []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(list))
	for _, s := range list {
		if p, err := netip.ParsePrefix(s); err == nil {
			if err := checkProxyRange(s, p.Masked()); err != nil {
				return nil, err
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, qlerror.New(qlerror.Invalid, "trusted proxy %q is neither an address nor a CIDR prefix (e.g. 10.0.0.7 or 10.0.0.0/24)", s)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// RefusalTrustedProxiesTooWide is the reason of a --trusted-proxies
// prefix wider than a block of reverse proxies is: trusting it lets every
// client in it write the X-Forwarded-For address the throttles and the
// audit records key on.
const RefusalTrustedProxiesTooWide qlerror.Reason = "trusted_proxies_too_wide"

// Public space is trusted at most by the /12 (IPv4) or /28 (IPv6) prefixes
// a CDN publishes for its proxies (Cloudflare's widest are /13 and /29);
// a wider one is most of a continent's addresses. Within private space
// (privateSpace) a whole block may be the proxies' network.
const (
	minPublicBits4 = 12
	minPublicBits6 = 28
)

// privateSpace are the blocks no public client comes from: loopback,
// RFC 1918, shared (CGNAT), link-local, unique local.
var privateSpace = []netip.Prefix{
	netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("fc00::/7"), netip.MustParsePrefix("fe80::/10"),
}

// checkProxyRange refuses a prefix (given as entry) that reaches into
// public space wider than minPublicBits4 or minPublicBits6: 0.0.0.0/0 or
// ::/0 would let any client on the internet forge its address.
func checkProxyRange(entry string, p netip.Prefix) error {
	for _, q := range privateSpace {
		if q.Bits() <= p.Bits() && q.Contains(p.Addr()) {
			return nil
		}
	}
	least := minPublicBits4
	if p.Addr().Is6() {
		least = minPublicBits6
	}
	if p.Bits() >= least {
		return nil
	}
	what := "addresses the public reaches the server from"
	if p.Bits() == 0 {
		what = "every address"
	}
	return qlerror.New(qlerror.Invalid, "--trusted-proxies entry %q covers %s: every client in it could write the X-Forwarded-For address the sign-in throttles and audit records "+
		"believe; list the reverse proxies in front of the server, their addresses or their own network (at least /%d in public space for IPv4, /%d for IPv6; any private block)",
		entry, what, minPublicBits4, minPublicBits6).Because(RefusalTrustedProxiesTooWide, "value", entry, "min", fmt.Sprintf("/%d", least))
}

func trusted(proxies []netip.Prefix, s string) bool {
	a, err := netip.ParseAddr(strings.TrimSpace(s))
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, p := range proxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddr is the address a request came from: its peer's, unless the
// peer is a trusted proxy; then the nearest address in X-Forwarded-For
// that is not a trusted proxy (a client can write anything at the left
// of the header, but each trusted proxy appends the peer it saw). A
// header that names no such address, or a malformed one, leaves the peer.
func clientAddr(r *http.Request, proxies []netip.Prefix) string {
	peer, port, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil || !trusted(proxies, peer) {
		return r.RemoteAddr
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
		if trusted(proxies, hop) {
			continue
		}
		if a, err := netip.ParseAddr(hop); err == nil {
			return net.JoinHostPort(a.Unmap().String(), port)
		}
		break
	}
	return r.RemoteAddr
}
