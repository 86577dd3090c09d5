package notify

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A test message reaches the receiver as a notification of a Run would,
// signed, with the event "test" in its header and body, so the
// receiver's checks and parsing are tried.
func TestATestMessageReachesTheReceiverSignedAndMarkedAsATest(t *testing.T) {
	type arrival struct {
		event, signature string
		body             []byte
	}
	got := make(chan arrival, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- arrival{r.Header.Get(HeaderEvent), r.Header.Get(HeaderSignature), body}
	}))
	defer srv.Close()
	d := NewDeliverer(DeliveryConfig{Secrets: func([]string) (map[string]string, error) { return map[string]string{"ops_hmac": "s3cret-value"}, nil }})
	trial := d.Try(t.Context(), "p1", "shop", Channel{Name: "ops", Kind: Webhook, URL: srv.URL, SigningSecret: "ops_hmac"})
	if !trial.Delivered || trial.Status != http.StatusOK {
		t.Fatalf("a test message to a receiver answering 200 was not delivered: %+v", trial.Failure)
	}
	a := <-got
	var p Payload
	if err := json.Unmarshal(a.body, &p); err != nil {
		t.Fatalf("the test message's body is not a payload: %v: %s", err, a.body)
	}
	if a.event != string(OnTest) || p.Event != OnTest || p.Project != "shop" || p.RunID != "" {
		t.Fatalf("the test message arrived as event %q, payload %+v; want event test of project shop and no Run", a.event, p)
	}
	if !Verify("s3cret-value", a.body, a.signature) {
		t.Fatalf("the test message's signature %q does not verify under the channel's signing secret", a.signature)
	}
}

// A receiver refusing the test message has its status and the start of
// its answer reported, with the reason a failed notification records,
// and a value of the channel's secrets it repeats shown by the secret's
// name only.
func TestATestMessageRefusedReportsTheStatusAndAnswerWithoutSecrets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, "bad token tok-12345678")
	}))
	defer srv.Close()
	d := NewDeliverer(DeliveryConfig{Secrets: func([]string) (map[string]string, error) { return map[string]string{"hook_token": "tok-12345678"}, nil }})
	trial := d.Try(t.Context(), "p1", "shop", Channel{Name: "ops", Kind: Webhook, URL: srv.URL, TokenSecret: "hook_token"})
	if trial.Delivered || trial.Failure.Reason != ReasonReceiverStatus || trial.Status != http.StatusForbidden || !strings.Contains(trial.Failure.Text, "403") || !strings.Contains(trial.Failure.Text, "bad token") {
		t.Fatalf("a test message answered 403 reported %+v; want not delivered, receiver_status, the status and the answer", trial)
	}
	if strings.Contains(trial.Failure.Text, "tok-12345678") {
		t.Fatalf("the reported failure shows the channel's token: %q", trial.Failure.Text)
	}
}

// A receiver where nothing listens is reported unreachable.
func TestATestMessageToNothingListeningIsReportedUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	trial := NewDeliverer(DeliveryConfig{}).Try(t.Context(), "p1", "shop", Channel{Name: "ops", Kind: Webhook, URL: url})
	if trial.Delivered || trial.Failure.Reason != ReasonUnreachable || !strings.Contains(trial.Failure.Text, "refused the connection") {
		t.Fatalf("a test message to a closed port reported %+v; want unreachable, the connection refused", trial)
	}
}

// A test message to a channel of a title and a body (Bark) has a body:
// that it is a test, from which server (the console's address when the
// server has one), for which project, in the channel's language.
func TestATestMessageToABarkChannelHasABodyNamingItsServerAndProject(t *testing.T) {
	got := make(chan map[string]string, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]string
		_ = json.NewDecoder(r.Body).Decode(&body)
		got <- body
		_, _ = io.WriteString(w, `{"code":200,"message":"success"}`)
	}))
	defer srv.Close()
	d := NewDeliverer(DeliveryConfig{ConsoleURL: "http://raspberrypi.local:5700"})
	for _, c := range []struct{ language, want string }{
		{"", "This is a test message from the QingLong server http://raspberrypi.local:5700 for project shop"},
		{"zh", "这是青龙服务器 http://raspberrypi.local:5700 为项目 shop 发送的测试消息"},
	} {
		trial := d.Try(t.Context(), "p1", "shop", Channel{Name: "phone", Kind: Bark, URL: srv.URL, Language: c.language})
		if !trial.Delivered {
			t.Fatalf("a test message to a Bark receiver answering 200 was not delivered: %+v", trial.Failure)
		}
		if body := <-got; !strings.Contains(body["body"], c.want) {
			t.Errorf("the Bark test message (language %q) has the body %q; want %q", c.language, body["body"], c.want)
		}
	}
}
