package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// POST /api/v1/projects/{project}/notifications/channels/{name}/test
// sends a test message to the project's channel and answers its outcome:
// delivered with the receiver's status, or not with the reason and the
// receiver's answer; a channel the project does not define is 404
// channel_missing, naming those it has.
func TestATestMessageOverTheAPIReportsWhetherTheReceiverTookIt(t *testing.T) {
	t.Parallel()
	events := make(chan string, 1)
	ok := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		var p notify.Payload
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &p)
		events <- string(p.Event) + " " + p.Project
	}))
	defer ok.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "upstream gone")
	}))
	defer down.Close()
	st := sqlitetest.OpenAt(t, filepath.Join(t.TempDir(), "ql.db"), func() int64 { return time.Now().UnixMilli() })
	spec := notify.Spec{Channels: []notify.Channel{{Name: "ops", Kind: notify.Webhook, URL: ok.URL}, {Name: "down", Kind: notify.Webhook, URL: down.URL}}}
	if _, err := st.ProjectSave(t.Context(), project.Project{ID: ids.New(), Name: "alpha", Status: project.Active, Notifications: spec.Encode()}); err != nil {
		t.Fatal(err)
	}
	tokens, _ := tokenStore(t)
	operator, _, err := apitoken.Create(t.Context(), tokens, "tester", ids.New(), "ci", apitoken.Operate, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Config{Runs: st, Triggers: st, Detail: st, Export: st, Tokens: tokens, TryChannel: notify.NewDeliverer(notify.DeliveryConfig{}).Try,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	try := func(channel string) (int, view.ChannelTrial, probe) {
		req := httptest.NewRequest("POST", "/api/v1/projects/alpha/notifications/channels/"+channel+"/test", strings.NewReader("{}"))
		req.Host = "localhost"
		req.Header.Set("Authorization", "Bearer "+operator)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var out view.ChannelTrial
		var refusal struct {
			Error struct{ Message, Reason string }
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &out)
		_ = json.Unmarshal(rec.Body.Bytes(), &refusal)
		return rec.Code, out, probe{status: rec.Code, message: refusal.Error.Message, reason: refusal.Error.Reason}
	}
	status, got, _ := try("ops")
	if status != 200 || !got.Delivered || got.Status != 200 || got.Channel != "ops" || got.ChannelKind != "webhook" {
		t.Fatalf("a test message to a receiver answering 200: %d %+v; want delivered, status 200", status, got)
	}
	if e := <-events; e != "test alpha" {
		t.Fatalf("the receiver got event and project %q; want a test message of alpha", e)
	}
	status, got, _ = try("down")
	if status != 200 || got.Delivered || got.Status != 502 || got.Reason != string(notify.ReasonReceiverStatus) || !strings.Contains(got.Error, "upstream gone") {
		t.Fatalf("a test message to a receiver answering 502: %d %+v; want not delivered, receiver_status, the status and its answer", status, got)
	}
	if _, _, p := try("nope"); p.status != 404 || p.reason != string(apply.RefusalChannelMissing) || !strings.Contains(p.message, "down, ops") {
		t.Fatalf("a test message to a channel alpha lacks: %d %s %q; want 404 channel_missing naming down, ops", p.status, p.reason, p.message)
	}
}
