package process

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
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

// The secrets file must belong to the user that reads it (the server's,
// the worker's): another account that can write it could feed commands
// its own values. The refusal names whose it is, by account, and both
// ways out.
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
	for _, says := range []string{"is owned by user nobody (uid 65534), not by the user that reads it here (user root (uid 0))", "run chown 0 " + s.Path, "or run this as user nobody"} {
		if !qlerror.Is(err, qlerror.FailedPrecondition) || !strings.Contains(err.Error(), says) {
			t.Fatalf("resolve from a file owned by uid 65534: %v; want a failed precondition saying %q", err, says)
		}
	}
}

// Whatever way the output is split into writes, a secret value never
// reaches the sink and everything else does, byte for byte; after each
// write, what is held back is only what could start a secret.
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
			if len(r.pending) > 0 && !slices.ContainsFunc(r.secrets, func(s []byte) bool { return len(s) > len(r.pending) && bytes.HasPrefix(s, r.pending) }) {
				t.Fatalf("trial %d: %q held back, which starts no secret", trial, r.pending)
			}
		}
		if err := r.Flush(); err != nil {
			t.Fatal(err)
		}
		if sink.String() != want {
			t.Fatalf("trial %d: %q, want %q", trial, sink.String(), want)
		}
	}
}

// writes feeds each of parts to a Redactor of secrets in its own write and
// returns what its sink held after each, and at the end after Flush.
func writes(t *testing.T, secrets []string, parts ...string) (after []string, flushed string) {
	t.Helper()
	var sink bytes.Buffer
	r := NewRedactor(&sink, secrets)
	for _, p := range parts {
		if _, err := r.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
		after = append(after, sink.String())
	}
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	return after, sink.String()
}

// Output that cannot be the start of a secret is passed on in the write
// that brings it, a line with a masked secret and the lines after it too:
// a command that then goes quiet has its lines in the log, not held until
// it prints again.
func TestOutputThatCannotStartASecretIsPassedOnAtOnce(t *testing.T) {
	t.Parallel()
	after, _ := writes(t, []string{"v3ry-s3cret-value"}, "token=v3ry-s3cret-value ok\ndone\n", "progress 50%\r")
	if after[0] != "token=*** ok\ndone\n" || after[1] != "token=*** ok\ndone\nprogress 50%\r" {
		t.Fatalf("after each write: %q; want every line passed on at once", after)
	}
}

// The tail of a write that could be the start of a secret is held, however
// long the command stays quiet, and masked with the rest of the secret
// when that arrives: passing it on would show the first bytes of the
// secret, which the next write completes.
func TestATailThatCouldStartASecretIsHeldAndMaskedWhenTheRestArrives(t *testing.T) {
	t.Parallel()
	after, flushed := writes(t, []string{"hunter2"}, "password=hun", "ter2 ok\n")
	if after[0] != "password=" || after[1] != "password=*** ok\n" || flushed != "password=*** ok\n" {
		t.Fatalf("after each write: %q, at the end %q; want the start of the secret held, then masked whole", after, flushed)
	}
}

// A held tail that the next write shows is no secret is passed on with it,
// byte for byte.
func TestAHeldTailThatTurnsOutNoSecretIsPassedOnWithTheNextWrite(t *testing.T) {
	t.Parallel()
	after, _ := writes(t, []string{"hunter2"}, "the hun", "gry fox\n")
	if after[0] != "the " || after[1] != "the hungry fox\n" {
		t.Fatalf("after each write: %q; want the held tail passed on with the write that decides it", after)
	}
}

// A secret that is also the start of a longer one is held until the output
// says which it is: masking the shorter at once would leave the rest of
// the longer one in the log.
func TestASecretThatCouldStartALongerOneIsHeldUntilTheOutputSaysWhich(t *testing.T) {
	t.Parallel()
	secrets := []string{"s3cr3t", "s3cr3t-token"}
	after, _ := writes(t, secrets, "a=s3cr3t", "-token b=s3cr3t", " end\n")
	if after[0] != "a=" || after[1] != "a=*** b=" || after[2] != "a=*** b=*** end\n" {
		t.Fatalf("after each write: %q; want each secret held until the next byte decides it", after)
	}
}

// The end of the output decides what is held: a secret there is masked,
// the mere start of one (the command printed no more of it) is written as
// it is.
func TestTheEndOfTheOutputFlushesTheHeldTailMaskedWhereItMust(t *testing.T) {
	t.Parallel()
	secrets := []string{"s3cr3t", "s3cr3t-token", "hunter2"}
	for output, want := range map[string]string{"x=s3cr3t": "x=***", "x=s3cr3t-tok": "x=***-tok", "x=hunt": "x=hunt"} {
		after, flushed := writes(t, secrets, output)
		if after[0] != "x=" || flushed != want {
			t.Errorf("%q: %q before the end, %q after it; want %q held, then %q", output, after[0], flushed, strings.TrimPrefix(output, "x="), want)
		}
	}
}
