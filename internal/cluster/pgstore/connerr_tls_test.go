package pgstore

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/testkit/cleanstop"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// A TLS failure is the configuration's, never an outage to retry: `ql db
// check` (CheckRuntime) and every connection say what is wrong — a
// certificate without the host's name (here no IP entry for 127.0.0.1),
// one of an authority the client does not trust, a server without TLS —
// and what to do, and the cause a replica logs names it.
func TestATLSFailureIsAConfigurationErrorSayingWhatIsWrongAndWhatToDo(t *testing.T) {
	t.Parallel()
	dir := pgtest.TempDir(t)
	certPEM, keyPEM := selfSigned(t, "localhost")
	certFile := pgtest.WriteServerFile(t, dir, "server.crt", certPEM)
	keyFile := pgtest.WriteServerFile(t, dir, "server.key", keyPEM)
	otherPEM, _ := selfSigned(t, "localhost")
	otherCA := pgtest.WriteServerFile(t, dir, "other.crt", otherPEM)
	srv, err := pgtest.StartServer(t.Context(), pgtest.Options{ExtraConf: map[string]string{"ssl": "on", "ssl_cert_file": certFile, "ssl_key_file": keyFile}})
	if err != nil {
		t.Fatal(err)
	}
	cleanstop.AtCleanup(t, "the PostgreSQL server", 30*time.Second, srv.Stop)
	withSSL := func(base, params string) string {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		u.RawQuery = params
		return u.String()
	}
	plain := pgtest.Server(t).SuperuserURL("postgres")
	for _, c := range []struct {
		name, url, cause, advice string
	}{
		{"no IP entry", withSSL(srv.SuperuserURL("postgres"), "sslmode=verify-full&sslrootcert="+certFile),
			"doesn't contain any IP SANs", "does not name the host the URL connects to"},
		{"unknown authority", withSSL(srv.SuperuserURL("postgres"), "sslmode=verify-ca&sslrootcert="+otherCA),
			"unknown authority", "set sslrootcert"},
		{"server without TLS", withSSL(plain, "sslmode=require"),
			tlsRefused, "turn ssl on in postgresql.conf"},
	} {
		err := CheckRuntime(t.Context(), c.url, RoleNames(""))
		if !qlerror.Is(err, qlerror.FailedPrecondition) || Transient(err) {
			t.Errorf("%s: %v (code %s, transient %v), want a configuration error no retry cures", c.name, err, qlerror.CodeOf(err), Transient(err))
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.cause) || !strings.Contains(msg, c.advice) || strings.Contains(msg, "cannot be reached") {
			t.Errorf("%s: %q, want it to say %q and %q", c.name, msg, c.cause, c.advice)
		}
		_, err = OpenRuntime(t.Context(), c.url, RuntimeConfig{Owner: "replica-tls"})
		if cause := ConnectCause(err); !strings.Contains(cause, c.cause) || Transient(err) {
			t.Errorf("%s: a replica's pool: cause %q (transient %v), want %q, not retried", c.name, cause, Transient(err), c.cause)
		}
	}
}

// selfSigned is a certificate for the DNS names given, and no IP address,
// with its key, in PEM.
func selfSigned(t *testing.T, names ...string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(fmt.Errorf("key: %w", err))
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}
