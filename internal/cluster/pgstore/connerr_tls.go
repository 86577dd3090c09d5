package pgstore

import (
	"crypto/x509"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// tlsRefused is pgx's whole text when the server answered the request for
// TLS with a refusal (its ssl setting is off).
const tlsRefused = "server refused TLS connection"

// tlsFailure says what in TLS stopped a connection: its cause (the x509
// reason, which names certificates and hosts, never the URL or a
// password) and what to do; both "" when err is no TLS failure. Each is
// the configuration's (a certificate that does not name the host, an
// authority the client does not trust, a server without TLS), which no
// retry cures: read as an outage, an operator would wait for a server
// that is up.
func tlsFailure(err error) (cause, advice string) {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return "", ""
	}
	var host x509.HostnameError
	var authority x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(err, &host):
		return host.Error(), "the server's certificate does not name the host the URL connects to; connect by a name the certificate " +
			"holds, or give the server a certificate whose subject alternative names include this host (an IP address needs an IP entry)"
	case errors.As(err, &authority):
		return authority.Error(), "the server's certificate is signed by an authority this client does not trust; set sslrootcert " +
			"in the URL (else $PGSSLROOTCERT) to the file of the authority that signed it"
	case errors.As(err, &invalid):
		return invalid.Error(), "the server's certificate is not valid (expired, not yet valid, or not for a server); give the server a valid certificate"
	case onlyTLSRefused(err):
		return tlsRefused, "the server does not accept TLS, and the URL's sslmode (require, verify-ca or verify-full; else $PGSSLMODE) demands it; " +
			"turn ssl on in postgresql.conf (with ssl_cert_file and ssl_key_file) and reload PostgreSQL; do not lower sslmode for a server on another host"
	}
	return "", ""
}

// onlyTLSRefused reports a connection whose every attempt the server
// refused TLS: under sslmode=prefer or allow a plain attempt follows, and
// its own failure is what went wrong.
func onlyTLSRefused(err error) bool {
	told := tellOnce(err).Error()
	return strings.HasSuffix(told, tlsRefused) && !strings.Contains(told, "; ")
}
