package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"
)

// Defaults of delivery.
const (
	DefaultBatch       = 16
	DefaultMaxAttempts = 8
	DefaultBaseBackoff = 5 * time.Second
	DefaultMaxBackoff  = time.Hour
	DefaultTimeout     = 10 * time.Second
	// maxErrorLen bounds the reason kept on a row: the receiver's status
	// and a little of its answer, never a request.
	maxErrorLen = 300
)

// Bounds of the delivery settings an operator may give.
const (
	MinBaseBackoff   = 100 * time.Millisecond
	MaxBaseBackoff   = time.Hour
	MaxAttemptsLimit = 100
)

// CheckSettings validates a base backoff and attempt limit as given to
// `ql serve` (zero: the default).
func CheckSettings(backoff time.Duration, attempts int) error {
	switch {
	case backoff != 0 && (backoff < MinBaseBackoff || backoff > MaxBaseBackoff):
		return fmt.Errorf("notify backoff: %s is outside %s–%s", backoff, MinBaseBackoff, MaxBaseBackoff)
	case attempts < 0 || attempts > MaxAttemptsLimit:
		return fmt.Errorf("notify max attempts: %d is outside 1–%d", attempts, MaxAttemptsLimit)
	}
	return nil
}

// SecretResolver returns the values of secret names (the secrets store).
type SecretResolver func(refs []string) (map[string]string, error)

// DeliveryConfig configures a Deliverer; zero fields take the defaults.
type DeliveryConfig struct {
	Outbox  Outbox
	Secrets SecretResolver
	// Client sends requests; its Timeout bounds one delivery.
	Client      *http.Client
	Batch       int
	MaxAttempts int
	BaseBackoff time.Duration
	MaxBackoff  time.Duration
	Log         *slog.Logger
}

// Deliverer sends pending outbox rows. Run its Round on a loop.Loop.
type Deliverer struct {
	cfg DeliveryConfig
}

// NewDeliverer fills defaults.
func NewDeliverer(cfg DeliveryConfig) *Deliverer {
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: DefaultTimeout}
	}
	if cfg.Client.Timeout <= 0 {
		c := *cfg.Client
		c.Timeout = DefaultTimeout
		cfg.Client = &c
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultBatch
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.BaseBackoff <= 0 {
		cfg.BaseBackoff = DefaultBaseBackoff
	}
	if cfg.MaxBackoff < cfg.BaseBackoff {
		cfg.MaxBackoff = max(DefaultMaxBackoff, cfg.BaseBackoff)
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Secrets == nil {
		cfg.Secrets = func(refs []string) (map[string]string, error) {
			if len(refs) == 0 {
				return nil, nil
			}
			return nil, fmt.Errorf("no secrets store is configured; secret %q cannot be read", refs[0])
		}
	}
	return &Deliverer{cfg: cfg}
}

// Round claims one batch and delivers it; more when the batch was full.
// The claim's lease outlasts every delivery of the batch, so no other
// process sends these rows meanwhile.
func (d *Deliverer) Round(ctx context.Context) (bool, error) {
	lease := time.Duration(d.cfg.Batch+1) * d.cfg.Client.Timeout
	batch, err := d.cfg.Outbox.NotificationsClaim(ctx, d.cfg.Batch, lease)
	if err != nil {
		return false, err
	}
	for _, m := range batch {
		if err := d.deliver(ctx, m); err != nil {
			return false, err
		}
	}
	return len(batch) == d.cfg.Batch, nil
}

// deliver sends one claimed row and records the result. Only a store
// error is returned: a failed delivery is the row's state.
func (d *Deliverer) deliver(ctx context.Context, m Message) error {
	sendErr := d.send(ctx, m)
	if ctx.Err() != nil {
		// Stopping: the row stays claimed until its lease passes, and is
		// then delivered again with the same key.
		return nil
	}
	if sendErr == nil {
		d.cfg.Log.Info("notification delivered", "id", m.ID, "event", m.Payload.Event, "channel", m.Channel.Name, "attempt", m.Attempts)
		return d.cfg.Outbox.NotificationDelivered(ctx, m.ID)
	}
	dead := m.Attempts >= d.cfg.MaxAttempts
	retryIn := d.Backoff(m.Attempts)
	reason := truncate(sendErr.Error())
	d.cfg.Log.Warn("notification not delivered", "id", m.ID, "event", m.Payload.Event, "channel", m.Channel.Name,
		"attempt", m.Attempts, "dead", dead, "retryIn", retryIn.String(), "reason", reason)
	return d.cfg.Outbox.NotificationFailed(ctx, m.ID, m.Attempts, retryIn, dead, reason)
}

// Backoff is the wait after the attempts-th failure: base · 2^(attempts−1),
// capped, with up to a fifth of it taken off at random so rows that failed
// together do not retry together.
func (d *Deliverer) Backoff(attempts int) time.Duration {
	b := d.cfg.BaseBackoff
	for i := 1; i < attempts && b < d.cfg.MaxBackoff; i++ {
		b *= 2
	}
	b = min(b, d.cfg.MaxBackoff)
	return b - rand.N(b/5+1) //nolint:gosec // G404: spreading retries, not security
}

func (d *Deliverer) send(ctx context.Context, m Message) error {
	sec, err := d.cfg.Secrets(m.Channel.Refs())
	if err != nil {
		return err
	}
	r, err := Build(m, sec)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return fmt.Errorf("channel %s: cannot build the request", m.Channel.Name)
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	resp, err := d.cfg.Client.Do(req)
	if err != nil {
		// The URL may hold a token: say only what failed.
		return fmt.Errorf("channel %s: request failed: %s", m.Channel.Name, transportReason(err))
	}
	defer resp.Body.Close() //nolint:errcheck // read only
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("channel %s: the receiver answered %d: %s", m.Channel.Name, resp.StatusCode, bytes.TrimSpace(snippet))
	}
	return nil
}

// transportReason names a transport failure without the URL that
// url.Error prints (its path may hold a token).
func transportReason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return "timed out"
		}
		return ue.Err.Error()
	}
	return err.Error()
}

func truncate(s string) string {
	if len(s) <= maxErrorLen {
		return s
	}
	return s[:maxErrorLen] + "…"
}
