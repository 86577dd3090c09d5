// Package tlstest makes the certificate a TLS listener under test
// serves, so every profile's TLS tests share one way to make them.
package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// WriteCert writes a self-signed certificate for 127.0.0.1 and localhost
// and its key, and returns their paths.
func WriteCert(t testing.TB) (certFile, keyFile string) {
	t.Helper()
	return WriteCertValid(t, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
}

// WriteCertValid writes a certificate as WriteCert does, valid from
// notBefore to notAfter: one a clock outside that window refuses.
func WriteCertValid(t testing.TB, notBefore, notAfter time.Time) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "qinglong test"},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// Pair writes a certificate as WriteCert does and returns a server's TLS
// configuration serving it and the roots a client trusts it by.
func Pair(t testing.TB) (server *tls.Config, roots *x509.CertPool) {
	t.Helper()
	return PairValid(t, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
}

// PairValid is Pair with a certificate valid from notBefore to notAfter.
func PairValid(t testing.TB, notBefore, notAfter time.Time) (server *tls.Config, roots *x509.CertPool) {
	t.Helper()
	certFile, keyFile := WriteCertValid(t, notBefore, notAfter)
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	pemBytes, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	roots = x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pemBytes) {
		t.Fatalf("no certificate in %s", certFile)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, roots
}
