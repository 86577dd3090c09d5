package tlstest

import (
	"crypto/tls"
	"net"
	"testing"
)

// The TLS 1.2 suites the suite tests offer: one with forward secrecy and
// an AEAD cipher, one CBC-SHA1 suite Go's defaults still accept.
const (
	GCMSuite = tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
	CBCSuite = tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA
)

// Handshake runs one TLS 1.2 handshake between server and client over an
// in-memory connection and returns the server's error: nil when the two
// agreed on a suite, else the error of the side that refused. Either side
// may restrict its suites. A loopback TCP connection, not net.Pipe: a
// refusing side's alert would wait on an unbuffered pipe for a peer
// itself still writing.
func Handshake(t testing.TB, server, client *tls.Config) error {
	t.Helper()
	client = client.Clone()
	client.MaxVersion = tls.VersionTLS12
	// The suite is under test, not the certificate: a client given no
	// authorities skips verifying it.
	client.InsecureSkipVerify = client.RootCAs == nil
	if client.ServerName == "" {
		client.ServerName = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close() //nolint:errcheck // a test listener
	done := make(chan error, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		s := tls.Server(conn, server)
		done <- s.Handshake()
		s.Close() //nolint:errcheck // the handshake's result is the one tested
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := tls.Client(conn, client)
	clientErr := c.Handshake()
	c.Close() //nolint:errcheck // the handshake's result is the one tested
	serverErr := <-done
	if serverErr != nil {
		return serverErr
	}
	return clientErr
}
