package notify

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Defaults of delivery.
const (
	DefaultMaxAttempts = 8
	DefaultBaseBackoff = 5 * time.Second
	DefaultMaxBackoff  = time.Hour
	DefaultTimeout     = 10 * time.Second
	// MaxInFlight bounds the deliveries under way at once. Sent one at a
	// time, one receiver slower than the timeout held every other channel
	// and project back by a timeout per notification; a few side by side
	// keep them flowing while a slow one waits, without a burst opening
	// more than a handful of connections.
	MaxInFlight = 8
	// PerChannelInFlight is one channel's share of MaxInFlight: a receiver
	// that does not answer, with a backlog of its own, holds at most these
	// slots until its timeout, and the other channels' notifications go
	// out through the rest meanwhile.
	PerChannelInFlight = MaxInFlight / 2
	// claimLookahead is how many due rows, first due first, a claim looks
	// among for rows within their channel's share.
	claimLookahead = 32 * MaxInFlight
	// leaseTimeouts is a claim's lease in delivery timeouts: a claimed
	// row's one delivery starts at once and ends within one timeout, so
	// the lease never lapses under a live delivery; a process that died
	// holding the claim leaves the row to be sent again when it lapses.
	leaseTimeouts = 17
	// claimPoll is how often a round with sends under way looks for rows
	// that fell due meanwhile.
	claimPoll = time.Second
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

// Delivery outcomes, as DeliveryConfig.Observe reports them: delivered,
// failed (retried after its backoff) or dead (failed its last allowed
// attempt: nothing retries it but ql notifications retry).
const (
	OutcomeDelivered = "delivered"
	OutcomeFailed    = "failed"
	OutcomeDead      = "dead"
)

// Outcomes lists every delivery outcome.
var Outcomes = []string{OutcomeDelivered, OutcomeFailed, OutcomeDead}

// SecretResolver returns the values of secret names (the secrets store).
type SecretResolver func(refs []string) (map[string]string, error)

// DeliveryConfig configures a Deliverer; zero fields take the defaults.
type DeliveryConfig struct {
	Outbox  Outbox
	Secrets SecretResolver
	// Client sends requests; its Timeout bounds one delivery.
	Client      *http.Client
	MaxAttempts int
	BaseBackoff time.Duration
	MaxBackoff  time.Duration
	Log         *slog.Logger
	// Observe, when set, is told each delivery's outcome (one of
	// Outcomes) once the outbox has recorded it, so a count of it agrees
	// with ql notifications list.
	Observe func(outcome string)
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
	if cfg.Observe == nil {
		cfg.Observe = func(string) {}
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

// Round delivers the due rows, at most MaxInFlight at once and at most
// PerChannelInFlight of one channel, until no delivery is under way and a
// claim finds none due; while deliveries are under way it claims again
// into the free slots whenever one ends and every claimPoll. It claims
// only as many rows as it has free slots, so a claimed row's send starts
// at once: the attempt the claim counts is the one under way (the attempt
// count is the fence of the row's failure report). A slow receiver holds
// at most its channel's share of the slots while the others are claimed
// and sent. The
// claim's lease outlasts a delivery many times over, so no other process
// sends these rows meanwhile. A store error stops the claims; the
// deliveries under way end first, and the first error is returned. When
// ctx ends, the sends under way are cancelled and their rows stay claimed
// until the lease passes.
func (d *Deliverer) Round(ctx context.Context) (bool, error) {
	lease := leaseTimeouts * d.cfg.Client.Timeout
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	failed := func() error {
		mu.Lock()
		defer mu.Unlock()
		return firstErr
	}
	ended := make(chan ChannelRef, MaxInFlight)
	perChannel := make(map[ChannelRef]int)
	// While sends are under way, rows that fall due meanwhile are claimed
	// into the free slots at once (when a send ends, and every claimPoll):
	// a slow receiver must not hold them back until its timeout.
	poll := time.NewTicker(claimPoll)
	defer poll.Stop()
	inFlight := 0
	for {
		if inFlight < MaxInFlight && ctx.Err() == nil && failed() == nil {
			batch, err := d.cfg.Outbox.NotificationsClaim(ctx, Claim{Limit: MaxInFlight - inFlight, Lease: lease,
				PerChannel: PerChannelInFlight, InFlight: perChannel, Lookahead: claimLookahead})
			if err != nil {
				mu.Lock()
				firstErr = cmp.Or(firstErr, err)
				mu.Unlock()
			}
			for _, m := range batch {
				inFlight++
				perChannel[RefOf(m)]++
				wg.Go(func() {
					defer func() { ended <- RefOf(m) }()
					if err := d.deliver(ctx, m); err != nil {
						mu.Lock()
						firstErr = cmp.Or(firstErr, err)
						mu.Unlock()
					}
				})
			}
		}
		if inFlight == 0 {
			break
		}
		select {
		case ref := <-ended:
			inFlight--
			if perChannel[ref]--; perChannel[ref] == 0 {
				delete(perChannel, ref)
			}
		case <-poll.C:
		}
	}
	wg.Wait()
	return false, failed()
}

// The diagnostic codes of a delivery's line: sent, or not (with its reason,
// whether it is retried and when).
const (
	CodeDelivered    = "notify.delivered"
	CodeNotDelivered = "notify.not_delivered"
)

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
		d.cfg.Log.Info("notification delivered", "code", CodeDelivered, "id", m.ID, "event", m.Payload.Event, "channel", m.Channel.Name, "attempt", m.Attempts)
		if err := d.cfg.Outbox.NotificationDelivered(ctx, m.ID); err != nil {
			return err
		}
		d.cfg.Observe(OutcomeDelivered)
		return nil
	}
	dead := m.Attempts >= d.cfg.MaxAttempts
	retryIn := d.Backoff(m.Attempts)
	reason := truncate(sendErr.Error())
	attrs := []any{"code", CodeNotDelivered, "id", m.ID, "event", m.Payload.Event, "channel", m.Channel.Name, "attempt", m.Attempts, "dead", dead}
	if !dead {
		// A dead row is never retried on its own: a wait would mislead.
		attrs = append(attrs, "retryIn", retryIn.String())
	}
	d.cfg.Log.Warn("notification not delivered", append(attrs, "reason", reason)...)
	if err := d.cfg.Outbox.NotificationFailed(ctx, m.ID, m.Attempts, retryIn, dead, reason); err != nil {
		return err
	}
	if dead {
		d.cfg.Observe(OutcomeDead)
	} else {
		d.cfg.Observe(OutcomeFailed)
	}
	return nil
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
