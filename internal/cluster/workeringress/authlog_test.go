package workeringress

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/authlog"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// authLines are the fixture's authentication lines, by code and reason.
func authLines(t *testing.T, f *fixture) map[[2]string]map[string]any {
	t.Helper()
	out := map[[2]string]map[string]any{}
	for _, l := range strings.Split(strings.TrimSpace(f.logs.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v in %s", err, l)
		}
		if code, _ := m["code"].(string); strings.HasPrefix(code, "auth.") {
			out[[2]string{code, m["reason"].(string)}] = m
		}
	}
	return out
}

// Every worker credential the ingress refuses is logged with why and the
// client's address: a missing or unknown one at INFO, a revoked one and
// one a rotation replaced at WARN with the worker's name, a throttled
// address at WARN; and a worker acting on another worker's session at
// WARN with its name. No line carries a credential.
func TestWorkerCredentialFailuresAndActsOnAnotherWorkersSessionAreLogged(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{FailedAuthBurst: 4})
	alice, bob := f.worker(t, "alice"), f.worker(t, "bob")
	aliceSession := f.register(t, alice).SessionID
	if status, raw, _ := f.post(t, bob, workerproto.PathHeartbeat, workerproto.HeartbeatRequest{SessionID: aliceSession}); status != http.StatusForbidden {
		t.Fatalf("bob's heartbeat of alice's session: %d %s, want 403", status, raw)
	}
	gone := f.worker(t, "gone")
	if _, err := f.admin.WorkerRevoke(t.Context(), "gone"); err != nil {
		t.Fatal(err)
	}
	rotated := f.worker(t, "rotated")
	if _, err := f.admin.WorkerRotate(t.Context(), "rotated", 0); err != nil {
		t.Fatal(err)
	}
	unknown := workerproto.CredentialPrefix + "AAAAnobodyAAAAnobodyAAAAnobodyAAAA"
	sent := []string{"", unknown, gone, rotated, unknown}
	for i, cred := range sent {
		want := http.StatusUnauthorized
		if i == len(sent)-1 {
			want = http.StatusTooManyRequests
		}
		if status, raw, _ := f.post(t, cred, workerproto.PathHeartbeat, workerproto.HeartbeatRequest{SessionID: "x"}); status != want {
			t.Fatalf("credential %d: %d %s, want %d", i, status, raw, want)
		}
	}
	got := authLines(t, f)
	for _, want := range []struct{ level, code, name, reason string }{
		{"WARN", authlog.CodeWorkerForbidden, "bob", authlog.ReasonOtherWorkers},
		{"INFO", authlog.CodeFailed, "", authlog.ReasonCredentialMissing},
		{"INFO", authlog.CodeFailed, "", authlog.ReasonCredentialUnknown},
		{"WARN", authlog.CodeRevokedUsed, "gone", authlog.ReasonCredentialRevoked},
		{"WARN", authlog.CodeRevokedUsed, "rotated", authlog.ReasonCredentialReplaced},
		{"WARN", authlog.CodeThrottled, "", authlog.ReasonThrottled},
	} {
		l, ok := got[[2]string{want.code, want.reason}]
		if !ok || l["level"] != want.level || l["name"] != want.name || l["surface"] != "worker" || l["addr"] != "127.0.0.1" {
			t.Errorf("%s %s: %v; want a %s line naming %q from 127.0.0.1 in:\n%s", want.code, want.reason, l, want.level, want.name, f.logs.String())
		}
	}
	for _, cred := range []string{alice, bob, gone, rotated, unknown} {
		if strings.Contains(f.logs.String(), cred[len(workerproto.CredentialPrefix):]) {
			t.Fatalf("the log carries a credential:\n%s", f.logs.String())
		}
	}
}

// A worker refused with 429 for its request rate is logged at WARN with
// its name, once a minute however many it sends.
func TestAWorkerOverItsRequestRateIsLogged(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{Rate: 0.1, Burst: 1})
	busy := f.worker(t, "busy")
	session := f.register(t, busy).SessionID
	for i := range 3 {
		if status, raw, _ := f.post(t, busy, workerproto.PathHeartbeat, workerproto.HeartbeatRequest{SessionID: session}); status != http.StatusTooManyRequests {
			t.Fatalf("heartbeat %d past the burst: %d %s, want 429", i+1, status, raw)
		}
	}
	l, ok := authLines(t, f)[[2]string{authlog.CodeThrottled, authlog.ReasonWorkerOverRate}]
	if !ok || l["level"] != "WARN" || l["name"] != "busy" || l["surface"] != "worker" || l["addr"] != "127.0.0.1" {
		t.Fatalf("%v; want a WARN %s line naming busy in:\n%s", l, authlog.ReasonWorkerOverRate, f.logs.String())
	}
	if n := strings.Count(f.logs.String(), authlog.ReasonWorkerOverRate); n != 1 {
		t.Fatalf("%d lines for three refusals within a minute, want 1:\n%s", n, f.logs.String())
	}
	if strings.Contains(f.logs.String(), busy[len(workerproto.CredentialPrefix):]) {
		t.Fatalf("the log carries the credential:\n%s", f.logs.String())
	}
}
