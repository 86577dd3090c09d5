package process

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

func masked(t *testing.T, secrets []string, output string) string {
	t.Helper()
	var sink bytes.Buffer
	r := NewRedactor(&sink, secrets)
	if _, err := r.Write([]byte(output)); err != nil {
		t.Fatal(err)
	}
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	return sink.String()
}

// A multi-line secret (a PEM key) printed line by line, or with CRLF line
// ends, is masked line by line.
func TestEveryLineOfAMultiLineSecretIsMasked(t *testing.T) {
	t.Parallel()
	key := "-----BEGIN TEST KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\n0Fh2KtVN8bT8ZWq3s1Q\n-----END TEST KEY-----\n"
	lines := strings.Split(strings.TrimSpace(key), "\n")
	out := masked(t, []string{key}, "second: "+lines[1]+"\nthird: "+lines[2]+"\r\ncrlf: "+strings.ReplaceAll(key, "\n", "\r\n"))
	for _, l := range lines {
		if strings.Contains(out, l) {
			t.Fatalf("line %q of the secret reached the output: %q", l, out)
		}
	}
	if !strings.HasPrefix(out, "second: ***\nthird: ***\r\ncrlf: ") {
		t.Fatalf("output %q; want the surrounding text kept", out)
	}
}

// The usual encodings of a secret are masked too.
func TestEncodedFormsOfASecretAreMasked(t *testing.T) {
	t.Parallel()
	secret := `p@ss w/rd&<x>"y?ü`
	var htmlSafe bytes.Buffer
	_ = json.NewEncoder(&htmlSafe).Encode(secret)
	plainJSON, _ := json.Marshal(secret)
	encoded := map[string]string{
		"base64":           base64.StdEncoding.EncodeToString([]byte(secret)),
		"base64 raw":       base64.RawStdEncoding.EncodeToString([]byte(secret)),
		"base64 url":       base64.URLEncoding.EncodeToString([]byte(secret)),
		"base64 url raw":   base64.RawURLEncoding.EncodeToString([]byte(secret)),
		"query escape":     url.QueryEscape(secret),
		"path escape":      url.PathEscape(secret),
		"json":             strings.Trim(string(plainJSON), `"`),
		"json html escape": strings.Trim(strings.TrimSpace(htmlSafe.String()), `"`),
	}
	for name, form := range encoded {
		out := masked(t, []string{secret}, "value="+form+" end")
		if out != "value=*** end" {
			t.Errorf("%s form %q: output %q; want it masked", name, form, out)
		}
	}
}

func TestSecretsShorterThanFourBytesAreRefusedByName(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "secrets.json")
	if err := os.WriteFile(path, []byte(`{"pin": "abc", "ok": "abcd"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Secrets{Path: path}
	_, err := s.Resolve([]string{"pin"})
	if !qlerror.Is(err, qlerror.FailedPrecondition) || !strings.Contains(err.Error(), `secret "pin"`) || !strings.Contains(err.Error(), "shorter than 4 bytes") {
		t.Fatalf("a 3-byte secret: %v; want a failed precondition naming it", err)
	}
	if strings.Contains(err.Error(), "abc") {
		t.Fatalf("the error shows the value: %v", err)
	}
	if got, err := s.Resolve([]string{"ok"}); err != nil || got["ok"] != "abcd" {
		t.Fatalf("a 4-byte secret: %v, %v", got, err)
	}
}

// The secrets file must belong to the server's user: another account that
// can write it could feed commands its own values.
func TestASecretsFileOwnedBySomeoneElseIsRefused(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		skipOutsideCI(t, "giving a file to another owner needs root")
	}
	s := writeSecrets(t, t.TempDir(), 0o600)
	if err := os.Chown(s.Path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := s.Resolve([]string{"api-token"})
	if !qlerror.Is(err, qlerror.FailedPrecondition) || !strings.Contains(err.Error(), "owned by uid 65534, not by the server's user (uid 0)") {
		t.Fatalf("resolve from a file owned by uid 65534: %v; want a failed precondition naming the owner", err)
	}
}

// Whatever way the output is split into writes, a secret value never
// reaches the sink and everything else does, byte for byte.
func TestSecretValuesAreMaskedAcrossAnySplitOfWrites(t *testing.T) {
	t.Parallel()
	secrets := []string{"s3cr3t-token", "hunter2", "s3cr3t"}
	input := "user=alice password=hunter2 token=s3cr3t-token short=s3cr3t end hunter"
	want := "user=alice password=*** token=*** short=*** end hunter"
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		var sink bytes.Buffer
		r := NewRedactor(&sink, secrets)
		rest := []byte(input)
		for len(rest) > 0 {
			n := 1 + rng.IntN(len(rest))
			if trial%7 == 0 {
				n = 1
			}
			if _, err := r.Write(rest[:n]); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if err := r.Flush(); err != nil {
			t.Fatal(err)
		}
		if sink.String() != want {
			t.Fatalf("trial %d: %q, want %q", trial, sink.String(), want)
		}
	}
}
