package httpapi

import (
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
