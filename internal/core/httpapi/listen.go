package httpapi

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/netaddr"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// loopbackHosts are the names of this machine every server answers to.
var loopbackHosts = []string{"localhost", "127.0.0.1", "::1"}

// DefaultAllowedHosts are the Host header names a server listening on addr
// answers to: the loopback names, the listen address's host when it names
// one (not a wildcard), and the extra ones given (--allowed-hosts).
func DefaultAllowedHosts(addr string, extra []string) []string {
	out := append([]string{}, loopbackHosts...)
	if host, _, err := net.SplitHostPort(addr); err == nil && host != "" {
		if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
			out = append(out, strings.ToLower(host))
		}
	}
	for _, h := range extra {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// CheckAllowedHosts refuses an --allowed-hosts entry no request could
// match: the Host header is compared without its port, so an entry is a
// host name or an IP address alone. The error suggests the entry meant.
func CheckAllowedHosts(list []string) error {
	for _, h := range list {
		if isHostName(h) {
			continue
		}
		name := strings.Trim(h, "[]")
		if u, err := url.Parse(h); err == nil && u.Host != "" {
			name = u.Hostname()
		} else if host, _, err := net.SplitHostPort(h); err == nil {
			name = host
		}
		if name == "" || !isHostName(name) {
			name = "a name such as ql.example.com"
		}
		return qlerror.New(qlerror.Invalid, "--allowed-hosts entry %q is not a host name: an entry is a host name or IP address without port or scheme "+
			"(the Host header's port is not compared); write %s", h, name)
	}
	return nil
}

// isHostName reports whether h can equal a Host header's host: an IP
// address, or a name without the port, scheme, path or brackets of an
// address.
func isHostName(h string) bool {
	return net.ParseIP(h) != nil || !strings.ContainsAny(h, ":/[]@")
}

// IsLoopback reports whether addr's host names only this machine: a
// loopback IP or "localhost". An empty or wildcard host binds every
// interface.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return netaddr.IsLoopbackHost(host)
}

// TLSSettings are the API listener's transport flags.
type TLSSettings struct {
	Cert, Key string
	// Insecure allows plain HTTP on an address other hosts can reach.
	Insecure bool
}

// LoadTLS checks the API listener's transport settings for addr and loads
// its certificate. Tokens travel in every request, so an address other
// hosts can reach is served over TLS unless plain HTTP is asked for
// explicitly; nil means plain HTTP.
func LoadTLS(addr string, s TLSSettings) (*tls.Config, error) {
	switch {
	case (s.Cert == "") != (s.Key == ""):
		return nil, fmt.Errorf("--tls-cert and --tls-key go together: give both PEM files, or neither")
	case s.Cert != "":
		cert, err := LoadKeyPair("--tls-cert", s.Cert, "--tls-key", s.Key)
		if err != nil {
			return nil, err
		}
		cfg := httpserve.TLSConfig()
		cfg.Certificates = []tls.Certificate{cert}
		return cfg, nil
	case !IsLoopback(addr) && !s.Insecure:
		return nil, fmt.Errorf("--http-addr %s is not a loopback address, and API tokens travel in every request: "+
			"give --tls-cert and --tls-key (PEM files) to serve HTTPS, bind a loopback address (e.g. %s) behind a TLS-terminating proxy, "+
			"or give --insecure-http to serve plain HTTP anyway", addr, DefaultAddr)
	}
	return nil, nil
}

// LoadKeyPair loads a listener's PEM certificate and private key, named by
// their flags in errors. A key other users of the host may read or change
// is refused, as the secrets and credential files are: whoever reads it
// can impersonate the server to every client; a group may read it (a
// certificate-management group often does).
func LoadKeyPair(certFlag, certFile, keyFlag, keyFile string) (tls.Certificate, error) {
	info, err := os.Stat(keyFile)
	if err == nil && info.Mode().Perm()&0o007 != 0 {
		return tls.Certificate{}, fmt.Errorf("%s %s is readable or writable by other users (mode %04o); run chmod 600 %s (or 640, owned by a group that needs it)",
			keyFlag, keyFile, info.Mode().Perm(), keyFile)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("%s %s / %s %s cannot be loaded as a PEM certificate and its key: %w", certFlag, certFile, keyFlag, keyFile, unwrapAll(err))
	}
	return cert, nil
}

func unwrapAll(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
