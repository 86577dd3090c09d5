package workeringress

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

func TestBodiesOverTheirCapAreRefusedTooLarge(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred := f.worker(t, "big")
	session := f.register(t, cred).SessionID
	overBody := []byte(`{"sessionId":"` + strings.Repeat("a", workerproto.MaxBody) + `"}`)
	status, raw, _ := f.post(t, cred, workerproto.PathHeartbeat, overBody)
	if status != http.StatusRequestEntityTooLarge || errorOf(t, raw).Code != workerproto.CodeTooLarge {
		t.Fatalf("heartbeat over MaxBody: %d %s, want 413 %s", status, raw, workerproto.CodeTooLarge)
	}
	// A log chunk may be larger than any other body, up to its own cap.
	chunk := bytes.Repeat([]byte{'x'}, workerproto.MaxLogChunk)
	logBody, err := json.Marshal(workerproto.LogRequest{Lease: workerproto.Lease{AttemptID: session, Token: "t", LeaseVersion: 1}, Data: chunk})
	if err != nil {
		t.Fatal(err)
	}
	if len(logBody) <= workerproto.MaxBody || len(logBody) > workerproto.MaxLogBody {
		t.Fatalf("a full chunk's body is %d bytes; the test needs one between the caps", len(logBody))
	}
	if status, raw, _ = f.post(t, cred, workerproto.PathLog, logBody); status == http.StatusRequestEntityTooLarge {
		t.Fatalf("a full log chunk was refused as too large: %s", raw)
	}
	overLog := append(logBody[:len(logBody)-1:len(logBody)-1], []byte(`,"x":"`+strings.Repeat("y", workerproto.MaxLogBody)+`"}`)...)
	status, raw, _ = f.post(t, cred, workerproto.PathLog, overLog)
	if status != http.StatusRequestEntityTooLarge || errorOf(t, raw).Code != workerproto.CodeTooLarge {
		t.Fatalf("log over MaxLogBody: %d %s, want 413 %s", status, raw, workerproto.CodeTooLarge)
	}
}

func TestBodiesAreDecodedStrictly(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred := f.worker(t, "strict")
	session := f.register(t, cred).SessionID
	for name, c := range map[string]struct{ body, mention string }{
		"unknown field": {`{"sessionId":"` + session + `","running":0,"workerId":"someone-else"}`, `unknown field "workerId"`},
		"trailing data": {`{"sessionId":"` + session + `","running":0}{}`, "data after the JSON object"},
		"wrong type":    {`{"sessionId":"` + session + `","running":"many"}`, "field running"},
		"not JSON":      {`sessionId=` + session, "malformed JSON"},
		"empty":         {``, "empty"},
	} {
		status, raw, _ := f.post(t, cred, workerproto.PathHeartbeat, []byte(c.body))
		e := errorOf(t, raw)
		if status != http.StatusBadRequest || e.Code != workerproto.CodeInvalid || !strings.Contains(e.Message, c.mention) {
			t.Fatalf("%s: %d %s, want 400 %s mentioning %q", name, status, raw, workerproto.CodeInvalid, c.mention)
		}
	}
	status, raw, _ := f.post(t, cred, workerproto.PathPull, pullRequest(t, session, -1))
	if status != http.StatusBadRequest || !strings.Contains(errorOf(t, raw).Message, "waitMs") {
		t.Fatalf("negative waitMs: %d %s", status, raw)
	}
}

func TestAWorkerOverItsRateIsRefusedAndOthersAreStillServed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{Rate: 0.1, Burst: 3})
	busy, calm := f.worker(t, "busy"), f.worker(t, "calm")
	busySession := f.register(t, busy).SessionID // the bucket's first token
	calmSession := f.register(t, calm).SessionID
	beat := func(cred, session string) (int, []byte, http.Header) {
		return f.post(t, cred, workerproto.PathHeartbeat, workerproto.HeartbeatRequest{SessionID: session})
	}
	for i := 0; i < 2; i++ {
		if status, raw, _ := beat(busy, busySession); status != http.StatusOK {
			t.Fatalf("heartbeat %d within the burst: %d %s", i+1, status, raw)
		}
	}
	status, raw, header := beat(busy, busySession)
	if status != http.StatusTooManyRequests || errorOf(t, raw).Code != workerproto.CodeRateLimited || header.Get("Retry-After") == "" {
		t.Fatalf("request past the burst: %d %s (Retry-After %q), want 429 %s with Retry-After", status, raw, header.Get("Retry-After"), workerproto.CodeRateLimited)
	}
	if status, raw, _ := beat(calm, calmSession); status != http.StatusOK {
		t.Fatalf("another worker was refused with the busy one: %d %s", status, raw)
	}
}

func TestTheIngressAnswersUnavailableWhileTheReplicaIsNotReady(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred := f.worker(t, "patient")
	session := f.register(t, cred).SessionID
	f.ready.Store(false)
	status, raw, _ := f.post(t, cred, workerproto.PathHeartbeat, workerproto.HeartbeatRequest{SessionID: session})
	if status != http.StatusServiceUnavailable || errorOf(t, raw).Code != workerproto.CodeUnavailable {
		t.Fatalf("while not ready: %d %s, want 503 %s", status, raw, workerproto.CodeUnavailable)
	}
	f.ready.Store(true)
	if status, raw, _ := f.post(t, cred, workerproto.PathHeartbeat, workerproto.HeartbeatRequest{SessionID: session}); status != http.StatusOK {
		t.Fatalf("once ready again: %d %s", status, raw)
	}
}

func TestRepliesNeverCarryCredentialsOrTokens(t *testing.T) {
	t.Parallel()
	cred := workerproto.CredentialPrefix + "S3cretS3cret"
	for _, msg := range []string{
		"credential " + cred + " is revoked",
		"token tok-123 is stale",
		"prefix-only qlw_ and qlw_abc-DEF_9",
	} {
		got := redact(msg, cred, "tok-123")
		if strings.Contains(got, "S3cret") || strings.Contains(got, "tok-123") || strings.Contains(got, "qlw_abc") {
			t.Fatalf("redact(%q) = %q", msg, got)
		}
	}
}
