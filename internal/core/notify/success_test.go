package notify

import (
	"bytes"
	"path/filepath"
	"testing"
)

// checkIn is a succeeded check-in script's notification, quoting what it
// printed, as a rule of event sends it.
func checkIn(c Channel, event Event) Message {
	id := "01930000-0000-7000-8000-00000000beef"
	zero := 0
	return Message{ID: id, Event: event, Channel: c, State: Pending, Payload: Payload{
		ID: id, Event: event, Project: "shop", Trigger: "daily-checkin", RunID: "01930000-0000-7000-8000-000000000002",
		RunState: "succeeded", ScheduledFor: "2026-11-30T08:00:00.000Z", FinishedAt: "2026-11-30T08:00:04.120Z",
		Task: "checkin", Attempt: 1, ExitCode: &zero, Output: "签到成功, 获得 10 积分\n连续签到 7 天",
	}}
}

// Each channel kind tells of a Run that succeeded as a success — its title
// says succeeded, Gotify gives it the priority of good news and ntfy its
// tick — with the output the script printed; the golden files are the
// bodies (an email's whole message). A finished rule's notification of the
// same Run has the same title.
func TestEveryChannelKindRendersASuccessWithItsOutput(t *testing.T) {
	const title = "QingLong: shop/daily-checkin succeeded"
	for _, kind := range Kinds {
		t.Run(string(kind), func(t *testing.T) {
			c, _ := goldenChannel(kind)
			c.Output = 2
			m := checkIn(c, OnSucceeded)
			var body []byte
			if kind == Email {
				mail, err := BuildMail(m, sentAt)
				if err != nil {
					t.Fatal(err)
				}
				body = mail.Message
			} else {
				req, err := Build(m, secrets, sentAt)
				if err != nil {
					t.Fatal(err)
				}
				body = req.Body
				switch {
				case req.Headers[HeaderEvent] != "succeeded":
					t.Fatalf("event header %q, want succeeded", req.Headers[HeaderEvent])
				case kind == Ntfy && (req.Headers["Title"] != title || req.Headers["Tags"] != "white_check_mark"):
					t.Fatalf("ntfy headers %v; want the title and the tick", req.Headers)
				case kind == Gotify && !bytes.Contains(body, []byte(`"priority":5`)):
					t.Fatalf("gotify body %s; want priority 5, a success's", body)
				}
			}
			matchGolden(t, filepath.Join("testdata", "succeeded", string(kind)+".golden"), body)
		})
	}
	if got := Title(checkIn(Channel{}, OnFinished).Payload); got != title {
		t.Fatalf("a finished rule's title of a success: %q, want %q", got, title)
	}
}

// A finished rule's title says how the Run ended, as that end's own rule
// would; its Gotify priority and ntfy tag are a failure's for a failure.
func TestAFinishedNotificationSaysHowTheRunEnded(t *testing.T) {
	for state, want := range map[string]string{
		"succeeded": "QingLong: shop/daily-checkin succeeded", "failed": "QingLong: shop/daily-checkin failed",
		"timed_out": "QingLong: shop/daily-checkin timed out", "lost": "QingLong: shop/daily-checkin was lost",
	} {
		p := checkIn(Channel{}, OnFinished).Payload
		p.RunState = state
		if got := Title(p); got != want {
			t.Errorf("finished %s: title %q, want %q", state, got, want)
		}
		if good := state == "succeeded"; (gotifyPriority(p) == 5) != good || (tag(p) == "white_check_mark") != good {
			t.Errorf("finished %s: gotify priority %d, ntfy tag %s", state, gotifyPriority(p), tag(p))
		}
	}
}
