package metrics

import (
	"fmt"
	"net"

	"github.com/qinglong/qinglong/internal/core/netaddr"
)

// CodeExposed is the diagnostic code of the warning that --metrics-addr
// is reachable from other machines; every profile logs it at start.
const CodeExposed = "serve.metrics_exposed"

// ExposedNote is what a server serving metrics on addr warns at its start
// when other machines can reach it, "" otherwise: the listener has no
// TLS, no token and no Host allow-list, so whoever reaches the port reads
// every series (with --metrics-per-trigger, project and trigger names).
func ExposedNote(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if netaddr.IsLoopbackHost(host) {
		return ""
	}
	return fmt.Sprintf("--metrics-addr %s is reachable from other machines: %s is plain HTTP with no token and no Host check, "+
		"so anyone who reaches the port reads every series in clear text (project and trigger names with --metrics-per-trigger); "+
		"bind a loopback address (e.g. 127.0.0.1:9464) and scrape through a proxy or tunnel, firewall the port to the scraper, "+
		"or leave --metrics-addr out to serve /metrics on the API's listener behind a read token", addr, Path)
}
