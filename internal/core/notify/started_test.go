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
