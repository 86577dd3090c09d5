package notify

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"
	"time"
)

// transportReason names a transport failure without the URL that
// url.Error prints (its path may hold a token), with what to check: a
// timeout says how long the receiver had ("timed out" alone reads as the
// receiver's own refusal), a host that does not resolve and a port where
// nothing listens point at the URL where c keeps it, the system's words
// alone ("no such host", "connection refused") at nothing to fix.
func transportReason(err error, timeout time.Duration, c Channel) string {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err.Error()
	}
	var refused *AddressRefusedError
	if errors.As(err, &refused) {
		return refused.Error()
	}
	if ue.Timeout() {
		return fmt.Sprintf("no answer within %s, the delivery timeout: the receiver must answer each request within it", timeout)
	}
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return fmt.Sprintf("the host %s does not exist (DNS: no such host); check the host in %s", dns.Name, urlPlace(c))
	}
	var op *net.OpError
	if errors.Is(err, syscall.ECONNREFUSED) && errors.As(err, &op) && op.Addr != nil {
		return fmt.Sprintf("%s refused the connection: nothing listens there; check the host and port in %s, and that the receiver is running", op.Addr, urlPlace(c))
	}
	return ue.Err.Error()
}

// transportKind is the reason of a transport failure: no answer within
// the timeout, a TLS handshake that failed, else the receiver not reached.
func transportKind(err error) Reason {
	if errors.As(err, new(*AddressRefusedError)) {
		return ReasonMisconfigured
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Timeout() {
		return ReasonTimeout
	}
	if _, ok := tlsFailure(err); ok {
		return ReasonTLSFailed
	}
	return ReasonUnreachable
}

// urlPlace is where c's URL comes from: the secret it is kept in, the
// SendKey a ServerChan URL is made of, or the file.
func urlPlace(c Channel) string {
	switch {
	case c.URLSecret != "":
		return fmt.Sprintf("the URL in secret %q", c.URLSecret)
	case c.Kind == ServerChan:
		return fmt.Sprintf("the SendKey in secret %q, which names the URL", c.TokenSecret)
	}
	return "the channel's url"
}
