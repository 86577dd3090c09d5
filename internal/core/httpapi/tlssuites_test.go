package httpapi

import (
	"crypto/tls"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/tlstest"
)

// The API and console listener speaks TLS 1.2 only with forward-secret
// AEAD suites: a client offering nothing but a CBC-SHA1 suite is refused,
// one offering an ECDHE AES-GCM suite is served.
func TestTheAPIListenerOffersOnlyForwardSecretAEADSuitesInTLS12(t *testing.T) {
	t.Parallel()
	cert, key := tlstest.WriteCert(t)
	cfg, err := LoadTLS("0.0.0.0:8443", TLSSettings{Cert: cert, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if err := tlstest.Handshake(t, cfg, &tls.Config{CipherSuites: []uint16{tlstest.CBCSuite}}); err == nil {
		t.Fatal("a client offering only ECDHE-ECDSA-AES128-SHA (CBC) was served; want refused")
	}
	if err := tlstest.Handshake(t, cfg, &tls.Config{CipherSuites: []uint16{tlstest.GCMSuite}}); err != nil {
		t.Fatalf("a client offering ECDHE-ECDSA-AES128-GCM-SHA256 was refused: %v", err)
	}
}
