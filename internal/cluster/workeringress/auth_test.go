package workeringress

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

func TestRequestsWithoutAKnownCredentialAreUnauthenticated(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	unknown := workerproto.CredentialPrefix + "AAAAunknownAAAAunknownAAAAunknownAAAA"
	for name, header := range map[string]string{
		"no header":      "",
		"other scheme":   "Basic dXNlcjpwYXNz",
		"not a qlw_ one": "Bearer some-token",
		"unknown":        "Bearer " + unknown,
	} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, f.url+workerproto.PathHeartbeat, strings.NewReader(`{"sessionId":"x","running":0}`))
		if err != nil {
			t.Fatal(err)
		}
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusUnauthorized || errorOf(t, raw).Code != workerproto.CodeUnauthenticated {
			t.Fatalf("%s: %d %s, want 401 %s", name, resp.StatusCode, raw, workerproto.CodeUnauthenticated)
		}
		if strings.Contains(string(raw), "unknownAAAA") || strings.Contains(string(raw), "dXNlcjpwYXNz") {
			t.Fatalf("%s: the reply echoes the credential: %s", name, raw)
		}
	}
}

func TestARevokedCredentialIsRefusedWithinFiveSeconds(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred := f.worker(t, "revoked")
	session := f.register(t, cred).SessionID
	beat := func() int {
		status, _, _ := f.post(t, cred, workerproto.PathHeartbeat, workerproto.HeartbeatRequest{SessionID: session})
		return status
	}
	if s := beat(); s != http.StatusOK {
		t.Fatalf("heartbeat before the revocation: %d", s)
	}
	if err := f.admin.WorkerRevoke(t.Context(), "revoked"); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	for beat() != http.StatusUnauthorized {
		if time.Since(revoked) > 5*time.Second {
			t.Fatal("the revoked credential was still served 5 s after its revocation")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestAnotherWorkersSessionAndAttemptAreForbidden(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	alice, bob := f.worker(t, "alice"), f.worker(t, "bob")
	aliceSession := f.register(t, alice).SessionID
	f.register(t, bob)
	f.admit(t, f.rt, "forbidden", 1, nil)
	var pulled workerproto.PullReply
	pull := pullRequest(t, aliceSession, 0)
	f.call(t, alice, workerproto.PathPull, pull, &pulled)
	if len(pulled.Grants) != 1 {
		t.Fatalf("alice pulled %d grants, want 1", len(pulled.Grants))
	}
	g := pulled.Grants[0]
	lease := workerproto.Lease{AttemptID: g.AttemptID, Token: pull.Token, LeaseVersion: g.LeaseVersion}
	for path, body := range map[string]any{
		workerproto.PathHeartbeat: workerproto.HeartbeatRequest{SessionID: aliceSession},
		workerproto.PathPull:      pullRequest(t, aliceSession, 0),
		workerproto.PathStart:     workerproto.StartRequest{Lease: lease},
		workerproto.PathRenew:     workerproto.RenewRequest{Lease: lease},
	} {
		status, raw, _ := f.post(t, bob, path, body)
		if status != http.StatusForbidden || errorOf(t, raw).Code != workerproto.CodeForbidden {
			t.Fatalf("bob on alice's %s: %d %s, want 403 %s", path, status, raw, workerproto.CodeForbidden)
		}
		if strings.Contains(string(raw), pull.Token) || strings.Contains(string(raw), bob) {
			t.Fatalf("the reply to %s echoes a token or the credential: %s", path, raw)
		}
	}
	var started workerproto.LeaseReply
	f.call(t, alice, workerproto.PathStart, workerproto.StartRequest{Lease: lease}, &started)
	if started.Reply != workerproto.ReplyRenewed {
		t.Fatalf("alice's own start after bob's refusals: %+v", started)
	}
}
