package singlecli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/notify"
)

// `ql notifications test` on the data directory sends a test message to
// the project's channel, with the channel's token from the secrets file,
// and says the receiver's status; a receiver refusing it makes the
// command fail (exit 1) with the status and the answer, the token shown
// by its secret's name only, and nothing is listed as a notification.
func TestNotificationsTestSendsAMarkedMessageAndReportsARefusalWithoutTheToken(t *testing.T) {
	arrived := make(chan string, 1)
	ok := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		var p notify.Payload
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &p)
		arrived <- string(p.Event) + " " + p.Project + " " + r.Header.Get("Authorization")
	}))
	defer ok.Close()
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, "unknown token "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	defer refusing.Close()
	dir := installedDir(t)
	writeFile(t, dir, "qinglong-secrets.json", `{"hook_token": "tok-abcdefgh"}`)
	applyDefs(t, dir, `project: shop
notifications:
  channels:
    ops: {type: webhook, url: "`+ok.URL+`", tokenSecret: hook_token}
    wrong: {type: webhook, url: "`+refusing.URL+`", tokenSecret: hook_token}
  rules:
    - {on: failed, channel: ops}
    - {on: failed, channel: wrong}
tasks:
  - {name: hello, command: [/bin/true]}
`)
	got := onDB(t, dir, "notifications", "test", "ops", "--project", "shop")
	if got.code != 0 || !strings.Contains(got.out, "delivered: the receiver answered 200") {
		t.Fatalf("notifications test to a receiver answering 200: %+v; want delivered, saying the status", got)
	}
	if a := <-arrived; a != "test shop Bearer tok-abcdefgh" {
		t.Fatalf("the receiver got %q; want a test message of shop with the channel's token", a)
	}
	got = onDB(t, dir, "notifications", "test", "wrong", "--project", "shop")
	if got.code != 1 || !strings.Contains(got.err, "not delivered (receiver_status)") || !strings.Contains(got.err, "401") || !strings.Contains(got.err, "unknown token") {
		t.Fatalf("notifications test to a receiver answering 401: %+v; want exit 1 naming receiver_status, the status and the answer", got)
	}
	if strings.Contains(got.err, "tok-abcdefgh") {
		t.Fatalf("the refusal shows the channel's token: %q", got.err)
	}
	if list := onDB(t, dir, "notifications", "list", "-o", "json"); list.code != 0 || strings.Contains(list.out, "\"id\"") {
		t.Fatalf("notifications list after two tests: %+v; want no notification", list)
	}
}

// `ql notifications test` on the data directory records the test in the
// audit trail, named by who ran the command, with the channel, its
// project and how it went, as `ql audit list` shows it.
func TestNotificationsTestOnTheDataDirectoryIsRecordedInTheAuditTrail(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) }))
	defer ok.Close()
	dir := installedDir(t)
	applyDefs(t, dir, `project: shop
notifications:
  channels:
    ops: {type: webhook, url: "`+ok.URL+`"}
  rules:
    - {on: failed, channel: ops}
tasks:
  - {name: hello, command: [/bin/true]}
`)
	if got := onDB(t, dir, "notifications", "test", "ops", "--project", "shop"); got.code != 0 {
		t.Fatalf("notifications test: %+v", got)
	}
	got := onDB(t, dir, "audit", "list", "--action", "channel.tested", "-o", "json")
	var page struct {
		Records []audit.Record `json:"records"`
	}
	if err := json.Unmarshal([]byte(got.out), &page); got.code != 0 || err != nil {
		t.Fatalf("audit list: %+v (%v)", got, err)
	}
	if len(page.Records) != 1 {
		t.Fatalf("the trail holds %d channel tests: %+v; want the one", len(page.Records), page.Records)
	}
	r := page.Records[0]
	if r.Actor == "" || r.Actor == "unknown" || r.ObjectName != "ops" || r.Project != "shop" || r.Note != "delivered, HTTP 202" {
		t.Fatalf("the test's record %+v; want who ran it testing ops of shop, delivered, HTTP 202", r)
	}
}
