package notify

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The wait after the n-th failure doubles from the base up to the cap,
// with at most a fifth taken off at random.
func TestBackoffDoublesUpToItsCapWithBoundedJitter(t *testing.T) {
	d := NewDeliverer(DeliveryConfig{BaseBackoff: time.Second, MaxBackoff: 10 * time.Second})
	for attempts, full := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second, 5: 10 * time.Second, 60: 10 * time.Second} {
		for range 50 {
			if b := d.Backoff(attempts); b > full || b < full-full/5 {
				t.Fatalf("backoff after %d failures is %s, want within [%s, %s]", attempts, b, full-full/5, full)
			}
		}
	}
}

func TestDeliverySettingsOutsideTheirRangeAreRefused(t *testing.T) {
	for _, tc := range []struct {
		backoff  time.Duration
		attempts int
		ok       bool
	}{{0, 0, true}, {100 * time.Millisecond, 100, true}, {time.Millisecond, 3, false}, {2 * time.Hour, 3, false}, {time.Second, 101, false}, {time.Second, -1, false}} {
		if err := CheckSettings(tc.backoff, tc.attempts); (err == nil) != tc.ok {
			t.Fatalf("CheckSettings(%s, %d) = %v, want ok %t", tc.backoff, tc.attempts, err, tc.ok)
		}
	}
}

// A reason longer than the bound is cut at a character: a cut inside one
// left bytes that are not UTF-8, which PostgreSQL refuses to store.
func TestALongReasonIsCutAtACharacter(t *testing.T) {
	for pad := range utf8.UTFMax {
		reason := strings.Repeat("x", maxErrorLen-pad) + strings.Repeat("服", maxErrorLen)
		got := truncate(reason)
		if !utf8.ValidString(got) || len(got) > maxErrorLen+len("…") || !strings.HasSuffix(got, "…") {
			t.Fatalf("a reason of %d bytes cut to %q (%d bytes): want valid UTF-8 of at most %d bytes and the ellipsis", len(reason), got, len(got), maxErrorLen)
		}
	}
}

// Retry-After is read on a 429 or 503 only, in seconds or as an HTTP date;
// one that does not parse or lies in the past asks for nothing, and a huge
// one is bounded rather than overflowing into a negative wait.
func TestRetryAfterIsReadInSecondsOrAsADateOnA429Or503(t *testing.T) {
	now := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		status int
		header string
		wait   time.Duration
	}{
		{http.StatusTooManyRequests, "120", 2 * time.Minute},
		{http.StatusServiceUnavailable, " 7 ", 7 * time.Second},
		{http.StatusServiceUnavailable, "Mon, 30 Nov 2026 02:10:00 GMT", 10 * time.Minute},
		{http.StatusTooManyRequests, "99999999999999999999", 0},
		{http.StatusTooManyRequests, "18446744073709551615", maxRetryAfter},
		{http.StatusTooManyRequests, "Sun, 29 Nov 2026 02:10:00 GMT", 0},
		{http.StatusTooManyRequests, "-5", 0},
		{http.StatusTooManyRequests, "soon", 0},
		{http.StatusTooManyRequests, "", 0},
		{http.StatusBadGateway, "120", 0},
		{http.StatusMovedPermanently, "120", 0},
	} {
		resp := &http.Response{StatusCode: tc.status, Header: http.Header{"Retry-After": {tc.header}}}
		if wait, asked := retryAfter(resp, now); wait != tc.wait || asked != (tc.wait > 0) {
			t.Errorf("%d with Retry-After %q: wait %s (asked %t), want %s", tc.status, tc.header, wait, asked, tc.wait)
		}
	}
}

// A receiver that echoes the request's path and query in its refusal, as
// a web framework's "Cannot POST /bot<token>/sendMessage" does, has the
// parts of a URL kept in a secret replaced by the secret's name in the
// reason recorded and logged: the token never shows, the channel's name
// and the receiver's own words still do.
func TestARefusalEchoingTheSecretURLsPathShowsNoneOfItsToken(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Cannot POST "+r.URL.RequestURI()+" (path "+r.URL.EscapedPath()+", key "+r.URL.Query().Get("key")+")", http.StatusNotFound)
	}))
	defer srv.Close()
	const token, key = "123456789:AAEhBP0av28tUsEr", "k3y-0f-the-hook"
	d := NewDeliverer(DeliveryConfig{Client: srv.Client(), Secrets: func([]string) (map[string]string, error) {
		return map[string]string{"hook_url": srv.URL + "/bot" + token + "/sendMessage?key=" + key}, nil
	}})
	m := Message{ID: "n1", Event: OnFailed, Channel: Channel{Name: "hook", Kind: Webhook, URLSecret: "hook_url"},
		Payload: Payload{ID: "n1", Event: OnFailed, Project: "shop"}}
	_, err := d.send(t.Context(), m)
	if err == nil {
		t.Fatal("a 404 was taken for a delivery")
	}
	if msg := err.Error(); strings.Contains(msg, token) || strings.Contains(msg, key) || !strings.Contains(msg, "channel hook: the receiver answered 404") ||
		!strings.Contains(msg, "Cannot POST <secret hook_url>") {
		t.Fatalf("the reason %q; want the receiver's words with every part of the secret URL replaced by its name", msg)
	}
}

// A receiver that never answers fails the attempt with how long it had,
// not a bare "timed out", which reads as its own refusal.
func TestAReceiverThatDoesNotAnswerFailsSayingTheTimeoutItHad(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	client := srv.Client()
	client.Timeout = 150 * time.Millisecond
	d := NewDeliverer(DeliveryConfig{Client: client})
	m := Message{ID: "n1", Event: OnFailed, Channel: Channel{Name: "hook", Kind: Webhook, URL: srv.URL + "/hook"},
		Payload: Payload{ID: "n1", Event: OnFailed, Project: "shop"}}
	r, err := d.send(t.Context(), m)
	want := "channel hook: request failed: no answer within 150ms, the delivery timeout: the receiver must answer each request within it"
	if err == nil || err.Error() != want || r != noAnswer {
		t.Fatalf("send: %v, %v; want no answer and %q", r, err, want)
	}
}
