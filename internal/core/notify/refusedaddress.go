package notify

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
)

// AddressRefusedError is a delivery a cluster replica refused to
// connect. A channel is written by a project's admin, who may be bound to
// one project and reaches nothing of the replicas' network otherwise (its
// tasks run on workers): a link-local address (a cloud's metadata service
// at 169.254.169.254, fe80::/10) or an unspecified one (0.0.0.0, ::) is
// refused always, the replica's loopback unless it is started with
// --notify-loopback.
type AddressRefusedError struct {
	Addr     netip.Addr
	Loopback bool
}

func (e *AddressRefusedError) Error() string {
	if e.Loopback {
		return fmt.Sprintf("a cluster replica sends no notification to %s, a loopback address of its own host, unless started with --notify-loopback: "+
			"give the receiver's address on the network, or start the replicas with --notify-loopback for a receiver beside each", e.Addr)
	}
	return fmt.Sprintf("a cluster replica sends no notification to %s, a link-local or unspecified address (such as a cloud's metadata service): "+
		"give the receiver's address on the network (a private one, such as 10.0.0.5, is sent to)", e.Addr)
}

// addressRule is the addresses a deliverer's dialer refuses.
type addressRule struct{ linkLocal, loopback bool }

// addresses is the rule of c's Refuse fields.
func (c DeliveryConfig) addresses() addressRule {
	return addressRule{linkLocal: c.RefuseLinkLocal, loopback: c.RefuseLoopback}
}

// refused is the refusal of a connection to a, nil when a is allowed.
// Private ranges are never refused: receivers on the network commonly
// have one.
func (r addressRule) refused(a netip.Addr) error {
	a = a.Unmap()
	switch {
	case r.loopback && a.IsLoopback():
		return &AddressRefusedError{Addr: a, Loopback: true}
	case r.linkLocal && (a.IsUnspecified() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast()):
		return &AddressRefusedError{Addr: a}
	}
	return nil
}

// control is a dialer's Control: it sees the address each connection is
// made to once the host name is resolved, before anything is sent, so a
// name that resolves to a refused address (or comes to, between two
// deliveries) is refused too.
func (r addressRule) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("a connection to %q: %w", address, err)
	}
	return r.refused(ap.Addr())
}

// transport is http.DefaultTransport's settings over a dialer that
// refuses what r names.
func (r addressRule) transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: DefaultTimeout, KeepAlive: DefaultTimeout, Control: r.control}).DialContext
	return t
}
