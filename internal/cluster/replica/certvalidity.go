package replica

import (
	"crypto/tls"
	"crypto/x509"
	"log/slog"
	"time"
)

// CodeCertificateNotValid says a listener's certificate is not yet valid or
// has expired by this host's clock as the replica starts.
const CodeCertificateNotValid = "serve.certificate_not_valid"

// warnCertificateOutsideValidity says at start that the certificate a TLS
// listener serves is outside its validity window by this host's clock.
// The replica serves it all the same (its clock may be the one that is
// wrong, and clients check against their own), but every client whose
// clock agrees refuses it, and the replica itself sees only "remote
// error: tls: bad certificate" then: said here, the cause is named once,
// before the first refusal.
func warnCertificateOutsideValidity(log *slog.Logger, listener, flag string, cfg *tls.Config, now time.Time) {
	if cfg == nil || len(cfg.Certificates) == 0 || len(cfg.Certificates[0].Certificate) == 0 {
		return
	}
	leaf, err := x509.ParseCertificate(cfg.Certificates[0].Certificate[0])
	if err != nil {
		return
	}
	var msg string
	switch {
	case now.Before(leaf.NotBefore):
		msg = "the " + listener + "'s certificate (" + flag + ") is not valid yet by this host's clock: clients whose clocks agree refuse it until " +
			leaf.NotBefore.UTC().Format(time.RFC3339) + "; check this host's clock, or the clock of the host that made the certificate"
	case now.After(leaf.NotAfter):
		msg = "the " + listener + "'s certificate (" + flag + ") has expired by this host's clock: clients refuse it; renew it (" + flag +
			"), then restart the replica, or check this host's clock if the certificate should still be valid"
	default:
		return
	}
	log.Warn(msg, slog.String("code", CodeCertificateNotValid), slog.String("listener", flag),
		slog.String("subject", leaf.Subject.String()),
		slog.String("not_before", leaf.NotBefore.UTC().Format(time.RFC3339)), slog.String("not_after", leaf.NotAfter.UTC().Format(time.RFC3339)),
		slog.String("now", now.UTC().Format(time.RFC3339)))
}
