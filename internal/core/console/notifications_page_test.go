package console

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/notify"
)

// listedOutbox answers every listing with rows, one page.
type listedOutbox struct{ rows []notify.Message }

func (o listedOutbox) NotificationsList(context.Context, notify.ListQuery) ([]notify.Message, string, error) {
	return o.rows, "", nil
}

func (listedOutbox) NotificationRetry(_ context.Context, id, _ string) (notify.Message, error) {
	return notify.Message{}, notify.ErrMissing(id)
}

// notificationRows serves the console's Notifications page over rows to
// a signed-in read session, in lang, and returns each row's markup by the
// notification's id.
func notificationRows(t *testing.T, lang string, rows ...notify.Message) map[string]string {
	t.Helper()
	c := New(Config{Notifications: listedOutbox{rows}, Tokens: &liveToken{}})
	c.sessions.add(&session{id: "s1", digest: []byte("d1"), scope: apitoken.Read, expiresMs: 1 << 62, seenMs: time.Now().UnixMilli()})
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	r, err := http.NewRequest(http.MethodGet, srv.URL+"/notifications?lang="+lang, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.AddCookie(&http.Cookie{Name: sessionCookie, Value: "s1"})
	resp, err := srv.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the notifications page: %d, %v\n%s", resp.StatusCode, err, page)
	}
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(?s)<tr id="notification-([^"]+)">.*?</tr>`).FindAllStringSubmatch(string(page), -1) {
		out[m[1]] = m[0]
	}
	if len(out) != len(rows) {
		t.Fatalf("the notifications page shows %d rows of %d:\n%s", len(out), len(rows), page)
	}
	return out
}

// webhookRow is a notification of a webhook channel created at createdMs,
// in state, next attempted at nextMs.
func webhookRow(id string, state notify.State, createdMs, nextMs int64) notify.Message {
	return notify.Message{ID: id, State: state, Event: notify.OnFailed, Channel: notify.Channel{Name: "ops", Kind: notify.Webhook},
		Payload: notify.Payload{Project: "shop", Trigger: "nightly"}, Attempts: 1, CreatedAtMs: createdMs, NextAttemptAtMs: nextMs}
}

// A pending notification due since its creation (new, or brought
// forward, whose next attempt is stored as its creation time so it keeps
// its place in its channel) reads "due now", in either language, never
// that past time; one waiting out a backoff reads its next attempt's time.
func TestANotificationBroughtForwardReadsDueNowNotItsCreationTime(t *testing.T) {
	const created, later = 1_767_225_600_000, 1_767_229_200_000 // 2026-01-01 00:00 and 01:00 UTC
	forward := webhookRow("forward", notify.Pending, created, created)
	waiting := webhookRow("waiting", notify.Pending, created, later)
	for lang, due := range map[string]string{"en": ">due now<", "zh": ">现在<"} {
		rows := notificationRows(t, lang, forward, waiting)
		if got := rows["forward"]; !strings.Contains(got, `class="due-now"`+due) || strings.Count(got, "2026-01-01 00:00") != 1 {
			t.Errorf("%s: a notification brought forward does not read %q, or shows its creation as its next attempt too:\n%s", lang, due, got)
		}
		if got := rows["waiting"]; strings.Contains(got, "due-now") || !strings.Contains(got, "2026-01-01 01:00") {
			t.Errorf("%s: a notification waiting out its backoff does not show when it is tried next:\n%s", lang, got)
		}
	}
}

// A notification retried by hand says who retried it, as the audit trail
// names them, in either language.
func TestANotificationRetriedByHandSaysWhoRetriedIt(t *testing.T) {
	m := webhookRow("retried", notify.Pending, 1_000, 1_000)
	m.RetriedAtMs, m.AttemptsBeforeRetry, m.RetriedBy = 2_000, 1, "console:user:<alice>@192.0.2.7"
	for lang, want := range map[string]string{"en": "retried by console:user:&lt;alice&gt;@192.0.2.7", "zh": "由 console:user:&lt;alice&gt;@192.0.2.7 手动重试"} {
		if got := notificationRows(t, lang, m)["retried"]; !strings.Contains(got, want) {
			t.Errorf("%s: the retried notification's row does not say %q:\n%s", lang, want, got)
		}
	}
}

// The output a notification quotes (its channel's output: lines, stored
// capped with it) is offered on its row, as text, under a label in either
// language; a notification that quotes none offers nothing.
func TestTheNotificationsPageShowsTheOutputANotificationQuotes(t *testing.T) {
	quoted := webhookRow("quoted", notify.Dead, 1_000, 1_000)
	quoted.Payload.Output = "tar: <b>/srv</b>: Cannot open\ntar: Exiting with failure status"
	plain := webhookRow("plain", notify.Dead, 1_000, 1_000)
	for lang, label := range map[string]string{"en": "Output it quotes", "zh": "引用的输出"} {
		rows := notificationRows(t, lang, quoted, plain)
		if got := rows["quoted"]; !strings.Contains(got, label) || !strings.Contains(got, "<pre>tar: &lt;b&gt;/srv&lt;/b&gt;: Cannot open\ntar: Exiting with failure status</pre>") {
			t.Errorf("%s: the row does not offer its quoted output as text under %q:\n%s", lang, label, got)
		}
		if got := rows["plain"]; strings.Contains(got, "quoted-output") {
			t.Errorf("%s: a notification quoting no output offers some:\n%s", lang, got)
		}
	}
}
