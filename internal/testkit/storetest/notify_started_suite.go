package storetest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
)

// testWebhookSaysItsVersionAndTheRunsTimesAndOrigin: a webhook request
// says QingLong and its version as its User-Agent, and a Run's
// notification says when the Run started, how long it took to its
// finishedAt and what admitted it, as the finishing transaction read them.
func testWebhookSaysItsVersionAndTheRunsTimesAndOrigin(t *testing.T, f Fixture) {
	var mu sync.Mutex
	var agent string
	var sent notify.Payload
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		agent = r.Header.Get("User-Agent")
		if err := json.Unmarshal(body, &sent); err != nil {
			t.Errorf("webhook body %s: %v", body, err)
		}
	}))
	defer srv.Close()
	m := deliverOnce(t, f, "timed", notify.Channel{Name: "hook", Kind: notify.Webhook, URL: srv.URL}, notify.DeliveryConfig{Version: "v1.2.3"})
	mu.Lock()
	defer mu.Unlock()
	if m.State != notify.Delivered || agent != "QingLong/v1.2.3" {
		t.Fatalf("notification %s sent with User-Agent %q, want delivered with QingLong/v1.2.3", m.State, agent)
	}
	started, errS := time.Parse(notify.StampLayout, sent.StartedAt)
	finished, errF := time.Parse(notify.StampLayout, sent.FinishedAt)
	if errS != nil || errF != nil || sent.DurationMs == nil || *sent.DurationMs != finished.Sub(started).Milliseconds() {
		t.Fatalf("run %s sent startedAt %q, finishedAt %q and durationMs %v; want both times and the milliseconds between them",
			sent.RunID, sent.StartedAt, sent.FinishedAt, sent.DurationMs)
	}
	if sent.Origin != string(run.OriginClock) {
		t.Fatalf("run %s sent origin %q, want clock: its trigger's clock admitted it", sent.RunID, sent.Origin)
	}
}
