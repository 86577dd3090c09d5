package storetest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// testAuditChannelTest: a channel's test message is recorded once it
// went, with who sent it, the channel by name (never its URL) under its
// project, and the outcome: delivered with the receiver's status, or not,
// with the reason and what the receiver said. A record that cannot be
// written is an error saying the outcome all the same (reason
// audit_not_recorded), and leaves no record.
func testAuditChannelTest(t *testing.T, f Fixture) {
	ctx := t.Context()
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	t.Cleanup(ok.Close)
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "upstream gone")
	}))
	t.Cleanup(down.Close)
	d := newDefs(t, f, "alpha", quietCron(t, f))
	spec := notify.Spec{Channels: []notify.Channel{{Name: "ops", Kind: notify.Webhook, URL: ok.URL}, {Name: "down", Kind: notify.Webhook, URL: down.URL}}}
	saveNotifications(t, f, &d, spec)
	deliverer := notify.NewDeliverer(notify.DeliveryConfig{})
	for _, c := range spec.Channels {
		if err := notify.RecordTrial(ctx, f.Record, "api:ops@192.0.2.3", "alpha", c, deliverer.Try(ctx, d.Project.ID, "alpha", c)); err != nil {
			t.Fatalf("record the test of %s: %v", c.Name, err)
		}
	}
	got := auditAll(t, f, audit.Query{Action: audit.ChannelTested})
	lines := auditLines(got)
	want := []string{"channel.tested api:ops@192.0.2.3 channel down alpha not delivered (receiver_status, HTTP 502): ", "channel.tested api:ops@192.0.2.3 channel ops alpha delivered, HTTP 200"}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], want[0]) || !strings.Contains(lines[0], "upstream gone") || lines[1] != want[1] {
		t.Fatalf("the trail of the channel tests %q; want %q (the first with the receiver's answer)", lines, want)
	}
	if got[1].ObjectID != "alpha/ops" || slices.ContainsFunc(got, func(r audit.Record) bool {
		return strings.Contains(r.Note, ok.URL) || strings.Contains(r.Note, down.URL)
	}) {
		t.Fatalf("records %+v; want ops named alpha/ops and no channel's URL", got)
	}

	// The database does not take the record (the request went away):
	// the outcome is said all the same, and nothing is recorded.
	gone, cancel := context.WithCancel(ctx)
	cancel()
	err := notify.RecordTrial(gone, f.Record, "api:ops@192.0.2.3", "alpha", spec.Channels[0], notify.Trial{Delivered: true, Status: http.StatusOK})
	if qlerror.ReasonOf(err) != audit.RefusalNotRecorded || !strings.Contains(err.Error(), "channel ops of project alpha went: delivered, HTTP 200") {
		t.Fatalf("a test whose record could not be written: %v; want %s saying it was delivered", err, audit.RefusalNotRecorded)
	}
	if n := len(auditAll(t, f, audit.Query{Action: audit.ChannelTested})); n != 2 {
		t.Fatalf("the trail holds %d channel tests after one not recorded; want 2", n)
	}
}
