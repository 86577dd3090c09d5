package notify

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/freeport"
	"github.com/qinglong/qinglong/internal/testkit/smtptest"
)

// Every way a delivery fails, as the tests of this package make it fail
// against real local receivers and mail servers, records its reason
// beside its English text, and every reason of the closed set is one of
// them: a page in another language says each in its own words.
func TestEveryWayADeliveryFailsRecordsItsReason(t *testing.T) {
	t.Parallel()
	answering := func(status int, header, body string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			if header != "" {
				k, v, _ := strings.Cut(header, ": ")
				w.Header().Set(k, v)
			}
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	t.Cleanup(hanging.Close)
	t.Cleanup(func() { close(release) })
	untrusted := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(untrusted.Close)
	refused := freeport.Refused(t)

	type walk struct {
		name string
		send func() error
		want Reason
	}
	hook := func(url string, timeout time.Duration) func() error {
		return func() error {
			_, err := NewDeliverer(DeliveryConfig{Client: &http.Client{Timeout: timeout}}).send(t.Context(), webhookTo(url))
			return err
		}
	}
	ding := func(body string) func() error {
		srv := answering(http.StatusOK, "", body)
		return func() error {
			m := sample(Channel{Name: "robot", Kind: DingTalk, URL: srv.URL + "/robot/send"})
			_, err := NewDeliverer(DeliveryConfig{}).send(t.Context(), m)
			return err
		}
	}
	mail := func(cfg smtptest.Config, edit func(*Channel), timeout time.Duration) func() error {
		return func() error {
			srv := smtptest.Start(t, cfg)
			c := mailChannel(srv)
			if edit != nil {
				edit(&c)
			}
			_, err := mailer(srv, timeout).send(t.Context(), mailMessage(c))
			return err
		}
	}
	login := map[string]string{"ql": mailPassword}
	walks := []walk{
		{"receiver answered 500", hook(answering(http.StatusInternalServerError, "", "boom").URL, 5*time.Second), ReasonReceiverStatus},
		{"receiver asked to wait (Retry-After)", hook(answering(http.StatusTooManyRequests, "Retry-After: 30", "").URL, 5*time.Second), ReasonReceiverRateLimited},
		{"receiver redirected", hook(answering(http.StatusFound, "Location: https://elsewhere.example/hook", "").URL, 5*time.Second), ReasonReceiverRedirected},
		{"chat service refused", ding(`{"errcode":310000,"errmsg":"keywords not in content"}`), ReasonReceiverNotAcknowledged},
		{"chat service's acknowledgement missing", ding(`<html>proxy</html>`), ReasonReceiverNotAcknowledged},
		{"chat service's rate limit", ding(`{"errcode":130101,"errmsg":"send too fast"}`), ReasonReceiverRateLimited},
		{"receiver silent", hook(hanging.URL, 150*time.Millisecond), ReasonTimeout},
		{"nothing listens", hook("http://"+refused+"/hook", 5*time.Second), ReasonUnreachable},
		{"certificate not trusted", hook(untrusted.URL, 5*time.Second), ReasonTLSFailed},
		{"secret not defined", func() error {
			d := NewDeliverer(DeliveryConfig{Secrets: func([]string) (map[string]string, error) { return nil, errors.New(`secret "hook_url" is not defined`) }})
			_, err := d.send(t.Context(), sample(Channel{Name: "hook", Kind: Webhook, URLSecret: "hook_url"}))
			return err
		}, ReasonSecretUnavailable},
		{"secret is no URL", func() error {
			d := NewDeliverer(DeliveryConfig{Secrets: func([]string) (map[string]string, error) { return map[string]string{"hook_url": "not a url"}, nil }})
			_, err := d.send(t.Context(), sample(Channel{Name: "hook", Kind: Webhook, URLSecret: "hook_url"}))
			return err
		}, ReasonMisconfigured},
		{"from is no mail address", mail(smtptest.Config{}, func(c *Channel) { c.From = "nobody" }, 5*time.Second), ReasonMisconfigured},
		{"mail server refused the recipient", mail(smtptest.Config{Auth: "PLAIN", Users: login, Replies: map[string]string{"RCPT ops@example.com": "550 5.1.1 no such user"}}, nil, 5*time.Second), ReasonMailRefused},
		{"mail server greylisted", mail(smtptest.Config{Auth: "PLAIN", Users: login, Replies: map[string]string{"RCPT ops@example.com": "451 4.7.1 greylisted"}}, nil, 5*time.Second), ReasonMailRefusedForNow},
		{"mail server refused the password", mail(smtptest.Config{Auth: "PLAIN", Users: map[string]string{"ql": "another"}}, nil, 5*time.Second), ReasonMailLoginRefused},
		{"mail server without STARTTLS", mail(smtptest.Config{NoStartTLS: true, Auth: "PLAIN"}, nil, 5*time.Second), ReasonMailNoSTARTTLS},
		{"mail server offers no login", mail(smtptest.Config{}, nil, 5*time.Second), ReasonMailNoLogin},
		{"mail server offers no login QingLong speaks", mail(smtptest.Config{Auth: "XOAUTH2"}, nil, 5*time.Second), ReasonMailNoLogin},
		{"mail server's certificate not trusted", func() error {
			srv := smtptest.Start(t, smtptest.Config{Auth: "PLAIN", Users: login})
			d := mailer(srv, 5*time.Second)
			d.cfg.MailRoots = nil
			_, err := d.send(t.Context(), mailMessage(mailChannel(srv)))
			return err
		}, ReasonTLSFailed},
		{"mail server silent", mail(smtptest.Config{Mute: true}, nil, 150*time.Millisecond), ReasonTimeout},
		{"mail server's port closed", mail(smtptest.Config{}, func(c *Channel) { c.Host, c.Port = splitHostPort(t, refused) }, 5*time.Second), ReasonUnreachable},
	}
	reached := map[Reason]bool{}
	for _, w := range walks {
		err := w.send()
		f := failureOf(err)
		if err == nil || f.Reason != w.want || f.Text != reasonOf(err) || f.Text == "" {
			t.Errorf("%s: failure %+v (%v), want reason %s beside its text", w.name, f, err, w.want)
		}
		reached[f.Reason] = true
	}
	// A send cut short by a stop is no failure of the send: the stores'
	// conformance case AStopGivesBackTheSendItCutShortDueAtOnce records it.
	reached[ReasonInterrupted] = true
	for _, r := range Reasons {
		if !reached[r] {
			t.Errorf("reason %s is reached by no failure walked: a code no delivery records", r)
		}
	}
	if len(Reasons) != len(reached) || slices.Contains(Reasons, "") {
		t.Errorf("reasons reached %v, the closed set %v", reached, Reasons)
	}
}

// A secret's value echoed by a refusing receiver is masked in the text,
// and the reason stays: masking rebuilds the error.
func TestAMaskedRefusalKeepsItsReason(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		http.Error(w, "slow down "+r.URL.RequestURI(), http.StatusTooManyRequests)
	}))
	defer srv.Close()
	d := NewDeliverer(DeliveryConfig{Client: srv.Client(), Secrets: func([]string) (map[string]string, error) {
		return map[string]string{"hook_url": srv.URL + "/t0ken-of-the-hook"}, nil
	}})
	_, err := d.send(t.Context(), sample(Channel{Name: "hook", Kind: Webhook, URLSecret: "hook_url"}))
	var asked *askedToWait
	if ReasonOf(err) != ReasonReceiverRateLimited || !errors.As(err, &asked) || asked.wait != 30*time.Second {
		t.Fatalf("a masked rate limit: %v (reason %q), want its reason and its wait kept", err, ReasonOf(err))
	}
}

// webhookTo is a notification to a webhook at url.
func webhookTo(url string) Message {
	return sample(Channel{Name: "hook", Kind: Webhook, URL: url})
}

func splitHostPort(t *testing.T, addr string) (string, int) {
	t.Helper()
	a, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return a.IP.String(), a.Port
}
