package notify

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
)

// LinkLocalError is a delivery a cluster replica refused to connect:
// the address is link-local (a cloud's metadata service at
// 169.254.169.254, fe80::/10) or unspecified (0.0.0.0, ::). A channel is
// written by a project's admin, who may be bound to one project and
// reaches no replica's network otherwise: its tasks run on workers.
type LinkLocalError struct{ Addr netip.Addr }

func (e *LinkLocalError) Error() string {
	return fmt.Sprintf("a cluster replica sends no notification to %s, a link-local or unspecified address (such as a cloud's metadata service): "+
		"give the receiver's address on the network (a private one, such as 10.0.0.5, is sent to)", e.Addr)
}

// linkLocalOrUnspecified reports whether a is one a cluster replica
// never connects to for a channel. Private ranges are not among them:
// receivers on the network commonly have one; nor is loopback, where a
// receiver may run beside the replica.
func linkLocalOrUnspecified(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsUnspecified() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast()
}

// refuseLinkLocal is a dialer's Control: it sees the address each
// connection is made to once the host name is resolved, so a name that
// resolves to a refused address (or comes to, between two deliveries)
// is refused too.
func refuseLinkLocal(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("a connection to %q: %w", address, err)
	}
	if linkLocalOrUnspecified(ap.Addr()) {
		return &LinkLocalError{Addr: ap.Addr().Unmap()}
	}
	return nil
}

// guardedTransport is http.DefaultTransport's settings over a dialer
// that refuses what linkLocalOrUnspecified names.
func guardedTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: DefaultTimeout, KeepAlive: DefaultTimeout, Control: refuseLinkLocal}).DialContext
	return t
}
