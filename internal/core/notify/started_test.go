package notify

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A Run whose command never started has no startedAt or durationMs in its
// payload, rather than a start at the epoch; one that ended within the
// millisecond it started says durationMs 0, not nothing.
func TestAPayloadSaysTheDurationOnlyOfARunThatStarted(t *testing.T) {
	s := Spec{Channels: []Channel{{Name: "ops", Kind: Webhook, URL: "https://h.example.com"}}, Rules: []Rule{{On: OnLost, Channel: "ops"}}}
	const at = 1_795_000_000_000
	for _, tc := range []struct {
		started int64
		want    []string
		absent  []string
	}{
		{0, []string{`"origin":"run_now"`}, []string{`"startedAt"`, `"durationMs"`}},
		{at, []string{`"startedAt":"` + stamp(at) + `"`, `"durationMs":0,`, `"origin":"run_now"`}, nil},
		{at - 2840, []string{`"durationMs":2840,`}, nil},
	} {
		ms := s.Derive(Finished{RunID: "r", State: run.Lost, StartedAtMs: tc.started, FinishedAtMs: at, Origin: run.OriginRunNow}, nil, func() string { return "id" })
		if len(ms) != 1 {
			t.Fatalf("a lost Run made %d notifications, want 1", len(ms))
		}
		body, err := json.Marshal(ms[0].Payload)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(body), w) {
				t.Errorf("started at %d: payload %s lacks %s", tc.started, body, w)
			}
		}
		for _, a := range tc.absent {
			if strings.Contains(string(body), a) {
				t.Errorf("started at %d: payload %s holds %s, want it absent", tc.started, body, a)
			}
		}
	}
}

// The chat and email texts say what the webhook payload carries: when the
// Run's first attempt started, how long it took and what admitted it; a
// Run that never started has neither start nor duration line, still its
// origin.
func TestChatAndEmailBodiesSayWhenTheRunStartedAndHowLongItTook(t *testing.T) {
	s := Spec{Channels: []Channel{{Name: "team", Kind: Telegram, URL: "https://api.telegram.org/botX/sendMessage", ChatID: "-1"},
		{Name: "mail", Kind: Email, Host: "smtp.example.com", From: "ql@example.com", To: []string{"ops@example.com"}}},
		Rules: []Rule{{On: OnFailed, Channel: "team"}, {On: OnFailed, Channel: "mail"}}}
	const at = 1_795_000_000_000
	for _, tc := range []struct {
		started int64
		want    []string
		absent  []string
	}{
		{at - 2840, []string{"started at: " + stamp(at-2840), "took: 2.84s", "origin: backfill"}, nil},
		{0, []string{"origin: backfill"}, []string{"started at:", "took:"}},
	} {
		ms := s.Derive(Finished{RunID: "r", ProjectName: "shop", State: run.Failed, StartedAtMs: tc.started, FinishedAtMs: at, Origin: run.OriginBackfill},
			nil, func() string { return "id" })
		if len(ms) != 2 {
			t.Fatalf("a failed Run made %d notifications, want 2", len(ms))
		}
		req, err := Build(ms[0], nil, sentAt)
		if err != nil {
			t.Fatal(err)
		}
		var chat struct{ Text string }
		if err := json.Unmarshal(req.Body, &chat); err != nil {
			t.Fatal(err)
		}
		mail, err := BuildMail(ms[1], sentAt)
		if err != nil {
			t.Fatal(err)
		}
		for what, body := range map[string]string{"telegram text": chat.Text, "mail": string(mail.Message)} {
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("started at %d: the %s lacks %q:\n%s", tc.started, what, w, body)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(body, a) {
					t.Errorf("started at %d: the %s holds %q, want it absent:\n%s", tc.started, what, a, body)
				}
			}
		}
	}
}
