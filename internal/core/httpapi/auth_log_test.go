package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/authlog"
)

// logLine is one JSON log line's attributes the authentication lines
// have.
type logLine struct {
	Level, Code, Surface, Addr, Name, Reason string
}

func logLines(t *testing.T, buf *bytes.Buffer) []logLine {
	t.Helper()
	var out []logLine
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if l == "" {
			continue
		}
		var ll logLine
		if err := json.Unmarshal([]byte(l), &ll); err != nil {
			t.Fatalf("%v in %s", err, l)
		}
		out = append(out, ll)
	}
	return out
}

// Every failed authentication of the API is logged, with its reason, the
// client's address and the token's name when the token is known, never
// the token: unknown and expired at INFO, a revoked token still sent and
// an address throttled at WARN.
func TestFailedAPIAuthenticationsAreLoggedWithTheirReasonNeverTheToken(t *testing.T) {
	t.Parallel()
	st, tokens := tokenStore(t)
	f := fakeReaders{}
	now := int64(0)
	var buf bytes.Buffer
	h := NewHandler(Config{Runs: f, Triggers: f, Detail: f, Tokens: st, Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.NewJSONHandler(&buf, nil)),
		NowMs: func() int64 { return now }, Limits: Limits{FailedAuthBurst: 4}})
	expiring, tok, err := apitoken.Create(t.Context(), st, "tester", "0190a4f2-0000-7000-8000-0000000000ab", "short", apitoken.Read, 3_600_000_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.TokenRevoke(t.Context(), "tok-read", "tester"); err != nil {
		t.Fatal(err)
	}
	now = *tok.ExpiresAtMs
	unknown := apitoken.Prefix + strings.Repeat("A", 43)
	sent := []string{unknown, tokens[apitoken.Read], expiring, "", unknown}
	for _, token := range sent {
		send(t, h, "GET", "/api/v1/runs", "localhost", token, "")
	}
	want := []logLine{
		{"INFO", authlog.CodeFailed, "api", "192.0.2.1", "", "token_unknown"},
		{"WARN", authlog.CodeRevokedUsed, "api", "192.0.2.1", "tok-read", "token_revoked"},
		{"INFO", authlog.CodeFailed, "api", "192.0.2.1", "short", "token_expired"},
		{"INFO", authlog.CodeFailed, "api", "192.0.2.1", "", "token_missing"},
		{"WARN", authlog.CodeThrottled, "api", "192.0.2.1", "", "address_throttled"},
	}
	got := logLines(t, &buf)
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), buf.String())
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, token := range sent[:3] {
		if strings.Contains(buf.String(), token) || strings.Contains(buf.String(), token[len(apitoken.Prefix):len(apitoken.Prefix)+8]) {
			t.Fatalf("the log carries a token:\n%s", buf.String())
		}
	}
}
