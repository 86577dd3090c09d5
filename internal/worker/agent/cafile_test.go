package agent

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/tlstest"
)

// A replica whose worker ingress has a certificate no system authority
// signed is reached only through --ca-file; without it the worker refuses
// the connection before sending its credential.
func TestAPrivatelySignedIngressIsTrustedOnlyThroughTheCAFile(t *testing.T) {
	t.Parallel()
	var reached atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reached.Add(1)
		_ = json.NewEncoder(w).Encode(workerproto.RegisterReply{SessionID: "s1", WorkerName: "w1", Capacity: 1})
	}))
	t.Cleanup(srv.Close)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	register := func(c *Client) error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := c.Register(ctx, workerproto.RegisterRequest{Capacity: 1})
		return err
	}

	system, err := NewClient(srv.URL, testCredential, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := register(system); err == nil || reached.Load() != 0 {
		t.Fatalf("with the system's authorities: err %v, %d requests reached the replica; want refused before any", err, reached.Load())
	}

	roots, err := LoadCAFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	private, err := NewClient(srv.URL, testCredential, 1, roots)
	if err != nil {
		t.Fatal(err)
	}
	if err := register(private); err != nil || reached.Load() != 1 {
		t.Fatalf("with --ca-file: err %v, %d requests reached the replica; want one", err, reached.Load())
	}
}

func TestACAFileWithoutACertificateIsRefusedSayingWhatItNeeds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2, 3}}), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCAFile(key); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Fatalf("a key as CA file: %v", err)
	}
	if _, err := LoadCAFile(filepath.Join(dir, "missing.pem")); err == nil || !strings.Contains(err.Error(), "--ca-file") {
		t.Fatalf("a missing CA file: %v", err)
	}
}

// A replica's certificate outside its validity window by this machine's
// clock is told as that window and the clock, to check or to renew, not
// as an authority to give --ca-file: the authority is given and right.
func TestACertificateOutsideItsValidityIsToldAsTheClockNotTheCAFile(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for name, window := range map[string][2]time.Time{
		"not yet valid": {now.Add(time.Hour), now.Add(2 * time.Hour)},
		"expired":       {now.Add(-2 * time.Hour), now.Add(-time.Hour)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			serverTLS, roots := tlstest.PairValid(t, window[0], window[1])
			srv := httptest.NewUnstartedServer(http.NotFoundHandler())
			srv.TLS = serverTLS
			srv.StartTLS()
			t.Cleanup(srv.Close)
			c, err := NewClient(srv.URL, testCredential, 1, roots)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err = c.Register(ctx, workerproto.RegisterRequest{Capacity: 1})
			if err == nil {
				t.Fatal("registered with a certificate outside its validity")
			}
			hint := registerHint(err, now)
			if !containsAll(hint, "valid from "+window[0].UTC().Format(time.RFC3339), "to "+window[1].UTC().Format(time.RFC3339),
				"this machine's clock says "+now.UTC().Format(time.RFC3339), "check this machine's clock") || strings.Contains(hint, "--ca-file") {
				t.Fatalf("hint %q: want the validity window, this machine's clock and to check it, not --ca-file", hint)
			}
		})
	}
}
