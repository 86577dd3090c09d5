package agent

import (
	"crypto/x509"
	"fmt"
	"time"
)

// validityHint says why a certificate outside its validity window was
// refused: crypto/tls checks the window against this machine's clock, so
// a clock set wrong refuses a sound certificate, and "not trusted, give
// --ca-file" would send the operator to the one setting that is right.
func validityHint(cert *x509.Certificate, now time.Time) string {
	window := fmt.Sprintf("the replica's certificate (%s) is valid from %s to %s, and this machine's clock says %s",
		cert.Subject.String(), cert.NotBefore.UTC().Format(time.RFC3339), cert.NotAfter.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	if now.Before(cert.NotBefore) {
		return window + ": check this machine's clock (`timedatectl`, NTP), or the clock of the host that made the certificate if it was made moments ago"
	}
	return window + ": renew the replica's --worker-tls-cert if it has expired, or check this machine's clock (`timedatectl`, NTP) if it has not"
}
