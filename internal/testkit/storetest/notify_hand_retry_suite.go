package storetest

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// testRetryByHandKeepsTheAttempts: a dead notification retried by hand
// keeps the attempts it failed (the listing shows them, and when it was
// retried), gets the limit of attempts again counted from the retry, and
// each of its later deliveries is logged a second time with its own code,
// the server's only trace of a retry written to the database directly.
func testRetryByHandKeepsTheAttempts(t *testing.T, f Fixture) {
	var answer atomic.Int32
	answer.Store(http.StatusServiceUnavailable)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(int(answer.Load()))
	}))
	t.Cleanup(srv.Close)
	failedWith(t, f, "handretry", notify.Spec{Channels: []notify.Channel{{Name: "down", Kind: notify.Webhook, URL: srv.URL}},
		Rules: []notify.Rule{{On: notify.OnFailed, Channel: "down"}}})
	var logged bytes.Buffer
	deliverer := notify.NewDeliverer(notify.DeliveryConfig{Outbox: f.Outbox, MaxAttempts: 2, BaseBackoff: notify.MinBaseBackoff,
		Log: slog.New(slog.NewJSONHandler(&logged, nil))})
	only := func() notify.Message {
		t.Helper()
		ms := outbox(t, f)
		if len(ms) != 1 {
			t.Fatalf("outbox %+v, want one notification", ms)
		}
		return ms[0]
	}
	roundsUntil := func(what string, done func(notify.Message) bool) notify.Message {
		t.Helper()
		for {
			if _, err := deliverer.Round(t.Context()); err != nil {
				t.Fatalf("round: %v", err)
			}
			if m := only(); done(m) {
				return m
			}
			if t.Context().Err() != nil {
				t.Fatalf("the notification never became %s: %+v", what, only())
			}
		}
	}
	roundsUntil("dead", func(m notify.Message) bool { return m.State == notify.Dead })
	if strings.Contains(logged.String(), notify.CodeRetriedByHandOutcome) {
		t.Fatalf("a notification never retried by hand was logged as one:\n%s", logged.String())
	}

	retried, err := f.Outbox.NotificationRetry(t.Context(), only().ID, "ops")
	if err != nil || retried.State != notify.Pending || retried.Attempts != 2 || retried.AttemptsBeforeRetry != 2 || retried.RetriedAtMs < retried.CreatedAtMs {
		t.Fatalf("retried by hand: %+v, %v; want pending with its 2 attempts kept, 2 before the retry and when it was retried", retried, err)
	}
	if listed := only(); listed.Attempts != 2 || listed.AttemptsBeforeRetry != 2 || listed.RetriedAtMs != retried.RetriedAtMs {
		t.Fatalf("listed after the retry: %+v; want the attempts kept and the retry by hand shown", listed)
	}
	// The limit counts from the retry: one more failure leaves it pending.
	again := roundsUntil("tried again", func(m notify.Message) bool { return m.Attempts >= 3 })
	if again.State != notify.Pending {
		t.Fatalf("after a failure since the retry by hand: %+v; want it pending, the limit of 2 counted from the retry", again)
	}
	answer.Store(http.StatusNoContent)
	done := roundsUntil("delivered", func(m notify.Message) bool { return m.State == notify.Delivered })
	if done.Attempts != 4 || done.AttemptsBeforeRetry != 2 || done.RetriedAtMs != retried.RetriedAtMs {
		t.Fatalf("delivered: %+v; want 4 attempts in all, 2 of them before the retry by hand", done)
	}
	var outcomes []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(logged.String()), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["code"] == notify.CodeRetriedByHandOutcome {
			outcomes = append(outcomes, rec)
		}
	}
	if len(outcomes) != 2 || outcomes[0]["delivered"] != false || outcomes[0]["level"] != "WARN" || outcomes[1]["delivered"] != true ||
		outcomes[1]["attempt"] != float64(4) || outcomes[1]["attempts_before_retry"] != float64(2) || outcomes[1]["retried_at_ms"] != float64(retried.RetriedAtMs) {
		t.Fatalf("logged %v as %s; want the failure since the retry at WARN, then the delivery at attempt 4 with 2 before the retry at %d",
			outcomes, notify.CodeRetriedByHandOutcome, retried.RetriedAtMs)
	}
}

// testRetryByHandRecordsWhoAsked: a retry by hand records who asked, as
// the audit trail names an actor; the listing and the outcome's log line
// show the last retry's, and a retry that names nobody is refused.
func testRetryByHandRecordsWhoAsked(t *testing.T, f Fixture) {
	ctx := t.Context()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(srv.Close)
	failedWith(t, f, "retriedby", notify.Spec{Channels: []notify.Channel{{Name: "up", Kind: notify.Webhook, URL: srv.URL}},
		Rules: []notify.Rule{{On: notify.OnFailed, Channel: "up"}}})
	kill := func() string {
		t.Helper()
		claimed, err := f.Outbox.NotificationsClaim(ctx, claimTen)
		if err != nil || len(claimed) != 1 {
			t.Fatalf("claim: %+v, %v; want the one notification", claimed, err)
		}
		if err := f.Outbox.NotificationFailed(ctx, claimed[0].ID, claimed[0].Attempts, time.Hour, true, notify.Failure{Text: "gave up"}); err != nil {
			t.Fatal(err)
		}
		return claimed[0].ID
	}
	id := kill()
	if listed := outboxRow(t, f, id); listed.RetriedBy != "" {
		t.Fatalf("never retried by hand, yet retried by %q", listed.RetriedBy)
	}
	_, err := f.Outbox.NotificationRetry(ctx, id, "")
	requireCode(t, err, qlerror.Invalid, "a retry by hand naming nobody")
	first, second := "console:user:alice@192.0.2.7", "api:ci-bot@192.0.2.8"
	if m, err := f.Outbox.NotificationRetry(ctx, id, first); err != nil || m.RetriedBy != first {
		t.Fatalf("retried by %s: %+v, %v; want it recorded", first, m, err)
	}
	if listed := outboxRow(t, f, id); listed.RetriedBy != first {
		t.Fatalf("listed after a retry by %s: retried by %q", first, listed.RetriedBy)
	}
	kill()
	if _, err := f.Outbox.NotificationRetry(ctx, id, second); err != nil {
		t.Fatal(err)
	}
	if listed := outboxRow(t, f, id); listed.RetriedBy != second {
		t.Fatalf("listed after a second retry by %s: retried by %q; want the last retry's", second, listed.RetriedBy)
	}
	var logged bytes.Buffer
	deliverer := notify.NewDeliverer(notify.DeliveryConfig{Outbox: f.Outbox, MaxAttempts: 2, BaseBackoff: notify.MinBaseBackoff,
		Log: slog.New(slog.NewJSONHandler(&logged, nil))})
	if _, err := deliverer.Round(ctx); err != nil {
		t.Fatal(err)
	}
	if m := outboxRow(t, f, id); m.State != notify.Delivered || m.RetriedBy != second {
		t.Fatalf("after a round: %+v; want it delivered, still retried by %s", m, second)
	}
	var outcome map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(logged.String()), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["code"] == notify.CodeRetriedByHandOutcome {
			outcome = rec
		}
	}
	if outcome["retried_by"] != second {
		t.Fatalf("logged %v as %s; want retried_by %s", outcome, notify.CodeRetriedByHandOutcome, second)
	}
}

// testComingBackSendsTheWaitingInOrder: notifications of a channel that
// failed wait out their backoff; a newer one finds the receiver back, and
// its delivery makes the waiting ones due at once, so they go out oldest
// first and before a notification created after them, even one due
// before they were brought forward.
func testComingBackSendsTheWaitingInOrder(t *testing.T, f Fixture) {
	d := notifyDefs(t, f, "comeback", notify.Rule{On: notify.OnFailed, Channel: "ops"})
	ctx := t.Context()
	var waiting []string
	for i := range 3 {
		waiting = append(waiting, runFinished(t, f, d.Trigger.TriggerID, i, run.AttemptFailed))
	}
	claimed, err := f.Outbox.NotificationsClaim(ctx, claimTen)
	if err != nil || len(claimed) != 3 {
		t.Fatalf("first claim: %+v, %v; want the 3 notifications", claimed, err)
	}
	for _, m := range claimed {
		if err := f.Outbox.NotificationFailed(ctx, m.ID, m.Attempts, time.Hour, false, notify.Failure{Reason: notify.ReasonUnreachable, Text: "connection refused"}); err != nil {
			t.Fatal(err)
		}
	}
	probe := runFinished(t, f, d.Trigger.TriggerID, 3, run.AttemptFailed)
	one := notify.Claim{Limit: 1, Lease: time.Hour, PerChannel: 1}
	claimed, err = f.Outbox.NotificationsClaim(ctx, one)
	if err != nil || len(claimed) != 1 || claimed[0].RunID != probe {
		t.Fatalf("claim while the others wait out an hour's backoff: %+v, %v; want the new notification of Run %s alone", claimed, err, probe)
	}
	// A notification created while the probe is under way is due before
	// the probe's delivery brings the waiting ones forward, and still goes
	// after them: they are due from their creation.
	newer := runFinished(t, f, d.Trigger.TriggerID, 4, run.AttemptFailed)
	if err := f.Outbox.NotificationDelivered(ctx, claimed[0].ID); err != nil {
		t.Fatal(err)
	}
	var order []string
	for range 4 {
		claimed, err := f.Outbox.NotificationsClaim(ctx, one)
		if err != nil || len(claimed) != 1 {
			t.Fatalf("claim %d after the receiver came back: %+v, %v; want one notification due", len(order)+1, claimed, err)
		}
		order = append(order, claimed[0].RunID)
		if err := f.Outbox.NotificationDelivered(ctx, claimed[0].ID); err != nil {
			t.Fatal(err)
		}
	}
	if want := append(waiting, newer); !slices.Equal(order, want) {
		t.Fatalf("after the receiver came back the notifications went out for Runs %v; want %v: those that waited, oldest first, then the newer one", order, want)
	}
}
