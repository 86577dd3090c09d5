package notify

import (
	"errors"
	"net"
)

// Reason is why a delivery failed, as a stable code beside the failure's
// English text: a page in another language says it in its own words and
// quotes the text as the detail (it names hosts and quotes receivers).
type Reason string

// The reasons a delivery fails for.
const (
	// ReasonReceiverStatus: the receiver answered a status other than 2xx.
	ReasonReceiverStatus Reason = "receiver_status"
	// ReasonReceiverRateLimited: the receiver asked for a wait (a
	// Retry-After, a chat service's rate limit).
	ReasonReceiverRateLimited Reason = "receiver_rate_limited"
	// ReasonReceiverRedirected: the receiver redirected, which is never
	// followed.
	ReasonReceiverRedirected Reason = "receiver_redirected"
	// ReasonReceiverNotAcknowledged: a chat service answered 2xx without
	// its acknowledgement, or with a refusal in it.
	ReasonReceiverNotAcknowledged Reason = "receiver_not_acknowledged"
	// ReasonTimeout: no answer within the delivery timeout.
	ReasonTimeout Reason = "timeout"
	// ReasonUnreachable: the receiver or mail server could not be reached
	// (a host that does not resolve, a refused or broken connection).
	ReasonUnreachable Reason = "unreachable"
	// ReasonTLSFailed: the TLS handshake failed (a certificate not trusted).
	ReasonTLSFailed Reason = "tls_failed"
	// ReasonSecretUnavailable: the secrets store refused a secret the
	// channel names; nothing was sent.
	ReasonSecretUnavailable Reason = "secret_unavailable"
	// ReasonMisconfigured: the delivery could not be built from the
	// channel (a secret that is no URL or SendKey, an address that is no
	// mail address); nothing was sent.
	ReasonMisconfigured Reason = "misconfigured"
	// ReasonMailRefused: the mail server refused a step for good (5xx).
	ReasonMailRefused Reason = "mail_refused"
	// ReasonMailRefusedForNow: the mail server refused a step for now (4xx).
	ReasonMailRefusedForNow Reason = "mail_refused_for_now"
	// ReasonMailLoginRefused: the mail server refused the login (5xx).
	ReasonMailLoginRefused Reason = "mail_login_refused"
	// ReasonMailNoSTARTTLS: the mail server does not offer the STARTTLS
	// the channel requires.
	ReasonMailNoSTARTTLS Reason = "mail_no_starttls"
	// ReasonMailNoLogin: the mail server offers no login QingLong speaks.
	ReasonMailNoLogin Reason = "mail_no_login"
	// ReasonInterrupted: the server stopped (or a cluster replica lost
	// its database) while the send was under way; it is made again.
	ReasonInterrupted Reason = "interrupted"
)

// Reasons lists every reason a delivery fails for.
var Reasons = []Reason{ReasonReceiverStatus, ReasonReceiverRateLimited, ReasonReceiverRedirected, ReasonReceiverNotAcknowledged,
	ReasonTimeout, ReasonUnreachable, ReasonTLSFailed, ReasonSecretUnavailable, ReasonMisconfigured,
	ReasonMailRefused, ReasonMailRefusedForNow, ReasonMailLoginRefused, ReasonMailNoSTARTTLS, ReasonMailNoLogin, ReasonInterrupted}

// Failure is what a failed delivery records on its row: its reason and
// its English text (cut to the row's bound), which ql notifications list
// and the log show.
type Failure struct {
	Reason Reason
	Text   string
}

// failed is an error of a delivery, classified.
type failed struct {
	reason Reason
	err    error
}

func (e *failed) Error() string { return e.err.Error() }
func (e *failed) Unwrap() error { return e.err }

// because classifies err as failing for reason.
func because(reason Reason, err error) error { return &failed{reason: reason, err: err} }

// ReasonOf is the reason err was classified with, "" when it was not.
func ReasonOf(err error) Reason {
	if f := (*failed)(nil); errors.As(err, &f) {
		return f.reason
	}
	return ""
}

// failureOf is the Failure a failed delivery's error records.
func failureOf(err error) Failure {
	return Failure{Reason: ReasonOf(err), Text: reasonOf(err)}
}

// connReason is the reason of a connection that failed or fell silent:
// a deadline passed is the delivery timeout.
func connReason(err error) Reason {
	if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
		return ReasonTimeout
	}
	return ReasonUnreachable
}
