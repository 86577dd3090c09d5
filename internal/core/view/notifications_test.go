package view

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/notify"
)

// A pending notification due since its creation (new, or brought forward:
// its next attempt stored as its creation time so it keeps its place in
// its channel) is marked dueNow beside that stored time, which the JSON
// keeps; one waiting out a backoff, and a delivered or dead one, are not.
func TestANotificationDueSinceItsCreationIsMarkedDueNow(t *testing.T) {
	for _, c := range []struct {
		name  string
		m     notify.Message
		due   bool
		field string
	}{
		{"brought forward", notify.Message{State: notify.Pending, CreatedAtMs: 1_000, NextAttemptAtMs: 1_000}, true, `"nextAttemptAtMs":1000,"dueNow":true`},
		{"waiting out a backoff", notify.Message{State: notify.Pending, CreatedAtMs: 1_000, NextAttemptAtMs: 9_000}, false, `"nextAttemptAtMs":9000,`},
		{"dead", notify.Message{State: notify.Dead, CreatedAtMs: 1_000, NextAttemptAtMs: 1_000}, false, `"createdAtMs":1000`},
	} {
		v := NewNotification(c.m)
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if v.DueNow != c.due || !strings.Contains(string(b), c.field) || !c.due && strings.Contains(string(b), "dueNow") {
			t.Errorf("%s: %s; want dueNow %t and %s", c.name, b, c.due, c.field)
		}
	}
}

// A notification retried by hand says in its JSON who retried it
// (retriedBy) beside when; one never retried says neither.
func TestANotificationsJSONSaysWhoRetriedIt(t *testing.T) {
	retried := NewNotification(notify.Message{State: notify.Pending, Attempts: 3, RetriedAtMs: 2_000, AttemptsBeforeRetry: 3, RetriedBy: "api:ci@192.0.2.8"})
	never := NewNotification(notify.Message{State: notify.Dead, Attempts: 3})
	b, _ := json.Marshal(retried)
	n, _ := json.Marshal(never)
	if !strings.Contains(string(b), `"retriedAtMs":2000,"attemptsBeforeRetry":3,"retriedBy":"api:ci@192.0.2.8"`) || strings.Contains(string(n), "retried") {
		t.Fatalf("retried by hand: %s; never retried: %s; want retriedBy beside retriedAtMs, and neither for one never retried", b, n)
	}
}
