package agent

import (
	"crypto/tls"
	"net/http"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/tlstest"
)

// The worker's client accepts only forward-secret AEAD suites in TLS 1.2:
// an ingress (or a proxy in front of it) that would pick a CBC-SHA1 suite
// is refused before the credential is sent.
func TestTheWorkerClientAcceptsOnlyForwardSecretAEADSuitesInTLS12(t *testing.T) {
	t.Parallel()
	server, roots := tlstest.Pair(t)
	c, err := NewClient("https://127.0.0.1:8081", testCredential, 1, roots)
	if err != nil {
		t.Fatal(err)
	}
	client := c.http.Transport.(*http.Transport).TLSClientConfig
	for suite, ok := range map[uint16]bool{tlstest.CBCSuite: false, tlstest.GCMSuite: true} {
		only := server.Clone()
		only.CipherSuites = []uint16{suite}
		err := tlstest.Handshake(t, only, client)
		if (err == nil) != ok {
			t.Errorf("a replica offering only %s: handshake error %v, want accepted %v", tls.CipherSuiteName(suite), err, ok)
		}
	}
}
