package notify

import (
	"context"
	"crypto/rand"
	"net/http"
	"os"
)

// CodeTested is the diagnostic code of the line a test message logs.
const CodeTested = "notify.channel_tested"

// OnTest marks a test message: no rule fires on it (it is not in Events),
// and no Run or outbox row stands behind it.
const OnTest Event = "test"

// Trial is the outcome of one test message: delivered, with the HTTP
// status the receiver answered (0 for an email channel, whose server
// took the mail), or the failure with its reason, as a real
// notification's failed attempt records it.
type Trial struct {
	Delivered bool
	Status    int
	Failure   Failure
}

// Try sends one test message of project to its channel c, through the
// same building, signing, sending and secret masking as a notification
// of a Run, so the receiver's checks and parsing are tried too; the
// payload's event is "test", its title says so, and its text (the body
// of a channel of a title and a body, such as Bark) says which server
// sent it for which project. It waits for the
// answer within the Deliverer's timeout and records nothing: no outbox
// row, no attempt, no silent or resting channel.
func (d *Deliverer) Try(ctx context.Context, projectID, project string, c Channel) Trial {
	m := Message{ID: "test-" + rand.Text(), ProjectID: projectID, Event: OnTest, Channel: c, Payload: Payload{Event: OnTest, Project: project, Server: d.server()}}
	m.Payload.ID = m.ID
	client := *d.cfg.Client
	rec := &statusRecorder{next: client.Transport}
	if rec.next == nil {
		rec.next = http.DefaultTransport
	}
	client.Transport = rec
	trying := &Deliverer{cfg: d.cfg, hello: d.hello}
	trying.cfg.Client = &client
	if _, err := trying.send(ctx, m); err != nil {
		return Trial{Status: rec.status, Failure: failureOf(err)}
	}
	return Trial{Delivered: true, Status: rec.status}
}

// server names this server in a test message: the console's address
// when it has one, else the host name ("" when neither is known).
func (d *Deliverer) server() string {
	if d.cfg.ConsoleURL != "" {
		return d.cfg.ConsoleURL
	}
	host, _ := os.Hostname() // without one, the message names the project alone
	return host
}

// statusRecorder keeps the status of the answer its request got, which
// send reads but does not return.
type statusRecorder struct {
	next   http.RoundTripper
	status int
}

func (s *statusRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(r)
	if err == nil {
		s.status = resp.StatusCode
	}
	return resp, err
}
