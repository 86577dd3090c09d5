package storetest

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
)

// testFailureReasonKeptWithItsText: a failed delivery's reason is kept
// beside its text and read back with it by a claim and a listing; a later
// failure replaces both, one without a reason (a release that kept none)
// leaves none; a retry keeps both, as it keeps the text, and a delivery
// clears both.
func testFailureReasonKeptWithItsText(t *testing.T, f Fixture) {
	d := notifyDefs(t, f, "alpha", notify.Rule{On: notify.OnFailed, Channel: "ops"})
	runFinished(t, f, d.Trigger.TriggerID, 1, run.AttemptFailed)
	ctx := t.Context()
	claim := func(attempts int) notify.Message {
		t.Helper()
		claimed, err := f.Outbox.NotificationsClaim(ctx, claimTen)
		if err != nil || len(claimed) != 1 || claimed[0].Attempts != attempts {
			t.Fatalf("claim: %+v, %v; want the row at attempt %d", claimed, err, attempts)
		}
		return claimed[0]
	}
	listed := func(state notify.State) notify.Message {
		t.Helper()
		rows, _, err := f.Outbox.NotificationsList(ctx, notify.ListQuery{State: state, Limit: 10})
		if err != nil || len(rows) != 1 {
			t.Fatalf("%s rows: %+v, %v; want the one row", state, rows, err)
		}
		return rows[0]
	}
	id := claim(1).ID
	timedOut := notify.Failure{Reason: notify.ReasonTimeout, Text: "channel ops: request failed: no answer within 10s, the delivery timeout"}
	if err := f.Outbox.NotificationFailed(ctx, id, 1, 0, false, timedOut); err != nil {
		t.Fatal(err)
	}
	if m := claim(2); m.LastErrorReason != timedOut.Reason || m.LastError != timedOut.Text {
		t.Fatalf("claimed after a timeout: %q (%q); want the reason %s beside its text", m.LastError, m.LastErrorReason, timedOut.Reason)
	}
	if err := f.Outbox.NotificationFailed(ctx, id, 2, 0, false, notify.Failure{Text: "the receiver answered 503"}); err != nil {
		t.Fatal(err)
	}
	if m := listed(notify.Pending); m.LastErrorReason != "" || m.LastError != "the receiver answered 503" {
		t.Fatalf("a failure with no reason after one with a reason: %q (%q); want the new text and no reason", m.LastError, m.LastErrorReason)
	}
	claim(3)
	refused := notify.Failure{Reason: notify.ReasonSecretUnavailable, Text: `secret "ops_url" is not defined`}
	if err := f.Outbox.NotificationFailed(ctx, id, 3, time.Hour, true, refused); err != nil {
		t.Fatal(err)
	}
	if m := listed(notify.Dead); m.LastErrorReason != refused.Reason || m.LastError != refused.Text {
		t.Fatalf("dead: %q (%q); want the reason %s beside its text", m.LastError, m.LastErrorReason, refused.Reason)
	}
	if m, err := f.Outbox.NotificationRetry(ctx, id, "ops"); err != nil || m.LastErrorReason != refused.Reason || m.LastError != refused.Text {
		t.Fatalf("retried: %+v, %v; want the last failure's reason kept beside its text", m, err)
	}
	if m := listed(notify.Pending); m.LastErrorReason != refused.Reason {
		t.Fatalf("listed after a retry: %q (%q); want the reason kept beside its text", m.LastError, m.LastErrorReason)
	}
	claim(4)
	if err := f.Outbox.NotificationDelivered(ctx, id); err != nil {
		t.Fatal(err)
	}
	if m := listed(notify.Delivered); m.LastErrorReason != "" || m.LastError != "" {
		t.Fatalf("delivered: %q (%q); want neither text nor reason", m.LastError, m.LastErrorReason)
	}
}
