package workeringress

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/authlimit"
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
	if _, err := f.admin.WorkerRevoke(t.Context(), "revoked"); err != nil {
		t.Fatal(err)
	}
	// Each heartbeat is judged by when it was sent, not by when its answer
	// came: one sent 5 s after the revocation must be refused, while a
	// loaded machine may take long to answer one sent sooner.
	revoked := time.Now()
	for {
		sent := time.Now()
		if beat() == http.StatusUnauthorized {
			break
		}
		if sent.Sub(revoked) >= 5*time.Second {
			t.Fatalf("the revoked credential was still served %s after its revocation", sent.Sub(revoked))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A revoked credential is an operator's action, an unknown one may be a
// guess: the ingress counts their refusals under their own reasons, while
// telling the worker the same words for both.
func TestARevokedWorkerCredentialIsCountedRevokedNotUnknown(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred := f.worker(t, "revoked-counted")
	if _, err := f.admin.WorkerRevoke(t.Context(), "revoked-counted"); err != nil {
		t.Fatal(err)
	}
	unknown := workerproto.CredentialPrefix + "AAAAnobodyAAAAnobodyAAAAnobodyAAAA"
	var messages []string
	for _, c := range []string{cred, unknown} {
		status, raw, _ := f.post(t, c, workerproto.PathHeartbeat, workerproto.HeartbeatRequest{SessionID: "x"})
		if status != http.StatusUnauthorized {
			t.Fatalf("%d %s, want 401", status, raw)
		}
		messages = append(messages, errorOf(t, raw).Message)
	}
	if got, want := f.h.AuthStats(), (authlimit.Failures{Unknown: 1, Revoked: 1}); got != want {
		t.Fatalf("auth stats %+v after one revoked and one unknown credential, want %+v", got, want)
	}
	if messages[0] != messages[1] {
		t.Fatalf("the revoked credential was told %q, the unknown one %q: a guesser could tell them apart", messages[0], messages[1])
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

// TestAnAddressThatFailedTenTimesIsRefusedBeforeTheDatabaseIsAsked: the
// API's limit (10 failures, then one a minute) holds for the worker
// ingress too, and a throttled request costs no database work.
func TestAnAddressThatFailedTenTimesIsRefusedBeforeTheDatabaseIsAsked(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	var acquired atomic.Int64
	acquire := f.h.acquire
	f.h.acquire = func() (Store, func(), bool) {
		acquired.Add(1)
		return acquire()
	}
	for i := range DefaultFailedAuthBurst {
		if status, raw, _ := f.post(t, fmt.Sprintf("%sbogus%03d", workerproto.CredentialPrefix, i), workerproto.PathPull, pullRequest(t, "x", 0)); status != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d %s, want 401", i+1, status, raw)
		}
	}
	before := acquired.Load()
	valid := f.worker(t, "never-seen-here")
	for _, cred := range []string{workerproto.CredentialPrefix + "bogus999", "", valid} {
		status, raw, header := f.post(t, cred, workerproto.PathPull, pullRequest(t, "x", 0))
		if status != http.StatusTooManyRequests || errorOf(t, raw).Code != workerproto.CodeRateLimited || header.Get("Retry-After") != "60" ||
			!strings.Contains(string(raw), "too many failed authentications from 127.0.0.1") {
			t.Fatalf("after %d failures (credential %.8q…): %d %s Retry-After %q; want 429 %s saying why, Retry-After 60",
				DefaultFailedAuthBurst, cred, status, raw, header.Get("Retry-After"), workerproto.CodeRateLimited)
		}
	}
	if n := acquired.Load() - before; n != 0 {
		t.Fatalf("throttled requests reached the store %d times, want 0", n)
	}
	if got, want := f.h.AuthStats(), (authlimit.Failures{Unknown: uint64(DefaultFailedAuthBurst), Throttled: 3}); got != want {
		t.Fatalf("auth stats %+v, want %+v", got, want)
	}
}

// TestAWorkerAuthenticatedHereIsServedWhileItsAddressIsThrottled: a worker
// sharing an address with one whose credential is wrong keeps working, and
// is still refused once revoked (its pass ends with that failure).
func TestAWorkerAuthenticatedHereIsServedWhileItsAddressIsThrottled(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred := f.worker(t, "neighbour")
	session := f.register(t, cred).SessionID
	for i := range DefaultFailedAuthBurst + 2 {
		f.post(t, fmt.Sprintf("%sbogus%03d", workerproto.CredentialPrefix, i), workerproto.PathPull, pullRequest(t, "x", 0))
	}
	if status, raw, _ := f.post(t, workerproto.CredentialPrefix+"bogus", workerproto.PathPull, pullRequest(t, "x", 0)); status != http.StatusTooManyRequests {
		t.Fatalf("the misconfigured worker after %d failures: %d %s, want 429", DefaultFailedAuthBurst+2, status, raw)
	}
	beat := func() (int, []byte) {
		status, raw, _ := f.post(t, cred, workerproto.PathHeartbeat, workerproto.HeartbeatRequest{SessionID: session})
		return status, raw
	}
	// Past the identity cache, so the database is asked again.
	time.Sleep(AuthCacheTTL + 100*time.Millisecond)
	if status, raw := beat(); status != http.StatusOK {
		t.Fatalf("the authenticated worker on the throttled address: %d %s, want 200", status, raw)
	}
	if _, err := f.admin.WorkerRevoke(t.Context(), "neighbour"); err != nil {
		t.Fatal(err)
	}
	// Judged by when each heartbeat was sent, as in
	// TestARevokedCredentialIsRefusedWithinFiveSeconds.
	for revoked := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		sent := time.Now()
		status, raw := beat()
		if status == http.StatusUnauthorized {
			break
		}
		if status != http.StatusOK || sent.Sub(revoked) >= 5*time.Second {
			t.Fatalf("the revoked worker, %s after its revocation: %d %s, want 401 once its cached identity passed", sent.Sub(revoked), status, raw)
		}
	}
	if status, raw := beat(); status != http.StatusTooManyRequests {
		t.Fatalf("the revoked worker after its refusal: %d %s, want 429 (its pass ended)", status, raw)
	}
}
