package notify

import (
	"bytes"
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qinglong/qinglong/internal/core/validate"
)

// Defaults of delivery.
const (
	DefaultMaxAttempts = 8
	DefaultBaseBackoff = 5 * time.Second
	DefaultMaxBackoff  = time.Hour
	DefaultTimeout     = 10 * time.Second
	// MaxInFlight is the number of delivery slots: the sends under way
	// that have not yet waited answerWithin for their answer. Sent one at
	// a time, one receiver slower than the timeout held every other
	// channel and project back by a timeout per notification; a few side
	// by side keep them flowing while a slow one waits, without a burst
	// opening more than a handful of connections.
	MaxInFlight = 8
	// PerChannelInFlight is one channel's share of MaxInFlight while its
	// receiver answers: above one so a burst to one channel is still sent
	// side by side. Receivers that hang together may each take their share
	// before any of their sends has gone unanswered for answerWithin; past
	// it their sends give their slots back (see answerWithin).
	PerChannelInFlight = 3
	// SilentInFlight is the share of a channel whose send got no answer
	// (timed out, its connection failed, or still unanswered after
	// answerWithin): until one of its sends is answered it has one send
	// under way at most, so N such channels hold N sends, not N shares.
	SilentInFlight = 1
	// MaxUnderWay bounds every send under way at once, those past
	// answerWithin included, which hold no slot: when a partition hangs
	// every receiver, the round stops claiming at this many sends instead
	// of opening a connection per channel with a backlog; each of them
	// ends within one timeout.
	MaxUnderWay = 2 * MaxInFlight
	// answerWithin is how long a send holds one of the MaxInFlight slots
	// without an answer, at most a tenth of the timeout (at the default
	// timeout both are one second). A receiver that works answers within
	// a fraction of a second; one still silent after a second is most
	// likely down. Three or more receivers that went down together filled
	// every slot with sends waiting out their timeout, and every healthy
	// channel waited that whole timeout; past this bound the send keeps
	// its connection but gives its slot to the others, and its channel is
	// silent (SilentInFlight) from that moment, not only once it times out.
	answerWithin = time.Second
	// answerWithinParts is the fraction of the timeout answerWithin never
	// exceeds: with a short timeout, waiting most of it for a slot would
	// save the other channels little.
	answerWithinParts = 10
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
	// maxSnippet is how much of a refusing receiver's answer a reason
	// quotes.
	maxSnippet = 200
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
		return fmt.Errorf("--notify-backoff %s is outside %s–%s", validate.Duration(backoff), validate.Duration(MinBaseBackoff), validate.Duration(MaxBaseBackoff))
	case attempts < 0 || attempts > MaxAttemptsLimit:
		return fmt.Errorf("--notify-max-attempts %d is outside 1–%d", attempts, MaxAttemptsLimit)
	}
	return nil
}

// CheckConsoleURL refuses a --console-url no link could be made of: it
// must be an absolute http:// or https:// address, without a user,
// query or fragment; "" (no links) is fine.
func CheckConsoleURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err == nil && u.User != nil {
		// Said without the URL, which holds the user's password.
		return fmt.Errorf("--console-url carries a user (and perhaps a password): give the console's address without one, " +
			"like https://ql.example.com; people sign in on the console itself")
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || checkPort(u) != nil {
		return fmt.Errorf("--console-url %q is not the console's address as people reach it: give an absolute http:// or https:// URL "+
			"without a user, query or fragment, like https://ql.example.com or https://example.com/qinglong", s)
	}
	return nil
}

// UserAgent is the User-Agent of every HTTP delivery by a binary of
// version.
func UserAgent(version string) string {
	return "QingLong/" + cmp.Or(version, "dev")
}

// RunLink is the address of a Run's page in the console at consoleURL.
func RunLink(consoleURL, runID string) string {
	return strings.TrimRight(consoleURL, "/") + "/runs/" + url.PathEscape(runID)
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
	// Client sends requests; its Timeout bounds one delivery, an email
	// channel's SMTP conversation too.
	Client *http.Client
	// MailRoots are the certificate authorities an email channel's
	// server is checked against; nil is the system's.
	MailRoots   *x509.CertPool
	MaxAttempts int
	BaseBackoff time.Duration
	MaxBackoff  time.Duration
	Log         *slog.Logger
	// ConsoleURL, when set, is the web console's address as people reach
	// it (CheckConsoleURL): each notification of a Run links to the Run's
	// page there.
	ConsoleURL string
	// Version is the binary's, as `ql version` prints it ("" reads as
	// "dev"): each HTTP request says User-Agent QingLong/<version>, so a
	// receiver's logs tell QingLong's requests, and its releases, apart.
	// Given here because cli, which holds it, imports this package.
	Version string
	// Observe, when set, is told each delivery's outcome (one of
	// Outcomes) once the outbox has recorded it, so a count of it agrees
	// with ql notifications list.
	Observe func(outcome string)
	// RefuseLinkLocal and RefuseLoopback, set on a cluster replica,
	// refuse to connect a channel's URL to a link-local or unspecified
	// address, or to a loopback one (AddressRefusedError), whatever
	// Client's transport.
	RefuseLinkLocal, RefuseLoopback bool
	// WakeWithin, when set, is told at the end of each round the wait
	// until the soonest retry or channel's wait this process knows of
	// ends, so the loop running the rounds wakes then (loop.WakeWithin):
	// on its cadence alone, a 500 ms backoff on the edge profile's 5 s
	// cadence was a 5 s wait while the log said 500 ms.
	WakeWithin func(time.Duration)
}

// Deliverer sends pending outbox rows. Run its Round on a loop.Loop, one
// round at a time: the slots and the channels' states are the round's.
type Deliverer struct {
	cfg DeliveryConfig
	// silent holds the channels whose latest send got no answer: it
	// timed out, failed to connect, or waited answerWithin. It outlives a
	// round, since a receiver that hangs stays down across rounds, and
	// lives only in this process: a restart forgets it and the channel
	// has its full share until a send of it waits answerWithin.
	silent map[ChannelRef]bool
	// resting holds the channels whose receiver asked for a wait (a
	// Retry-After, a chat service's rate limit) until when: none of their
	// notifications is sent before then, as each would only be refused
	// and use up an attempt. Like silent, it outlives a round and lives
	// only in this process.
	resting map[ChannelRef]time.Time
	// retryAt is the soonest end of a backoff this process recorded that
	// has not passed (zero: none). Another process's failures are not
	// known here: that process wakes for them. Owned by Round.
	retryAt time.Time
	// hello is the name an email delivery gives itself in EHLO.
	hello string
}

// NewDeliverer fills defaults.
func NewDeliverer(cfg DeliveryConfig) *Deliverer {
	c := http.Client{Timeout: DefaultTimeout}
	if cfg.Client != nil {
		c = *cfg.Client
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	// A redirect is reported, never followed: the client would turn the
	// POST into a GET without its body (301, 302, 303), record the answer
	// of whatever the target is as the receiver's, and post a signed body
	// to wherever the receiver names (307, 308).
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if rule := cfg.addresses(); rule != (addressRule{}) {
		c.Transport = rule.transport()
	}
	cfg.Client = &c
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
	if cfg.WakeWithin == nil {
		cfg.WakeWithin = func(time.Duration) {}
	}
	if cfg.Secrets == nil {
		cfg.Secrets = func(refs []string) (map[string]string, error) {
			if len(refs) == 0 {
				return nil, nil
			}
			return nil, fmt.Errorf("no secrets store is configured; secret %q cannot be read", refs[0])
		}
	}
	return &Deliverer{cfg: cfg, silent: make(map[ChannelRef]bool), resting: make(map[ChannelRef]time.Time), hello: helloName()}
}

// Round delivers the due rows, at most MaxInFlight at once in its slots
// (MaxUnderWay in all) and at most PerChannelInFlight of one channel (SilentInFlight of a silent channel),
// until no delivery is under way and a claim finds none due; while
// deliveries are under way it claims again into the free slots whenever
// one ends, one passes answerWithin, and every claimPoll. It claims only
// as many rows as it has free slots, so a claimed row's send starts at
// once: the attempt the claim counts is the one under way (the attempt
// count is the fence of the failure report). A slow receiver holds at
// most its channel's share of the slots, and none once its sends have
// waited answerWithin: such a send runs on to its answer or its timeout
// outside the slots, within MaxUnderWay, and its channel is silent
// meanwhile. The claim's lease outlasts a delivery many times over, so no
// other process sends these rows meanwhile. A store error stops the
// claims; the deliveries under way end first, and the first error is
// returned. When ctx ends, the sends under way are cancelled and their
// rows given back (interrupted).
func (d *Deliverer) Round(ctx context.Context) (bool, error) {
	lease := leaseTimeouts * d.cfg.Client.Timeout
	waitAnswer := min(answerWithin, d.cfg.Client.Timeout/answerWithinParts)
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
	ended := make(chan sendEnd, MaxUnderWay)
	// perChannel counts every send under way, in a slot or past
	// answerWithin, so the store's share check sees them all.
	perChannel := make(map[ChannelRef]int)
	// slotted holds the sends that hold a slot; waiting lists them in
	// start order, which is the order they pass answerWithin (ended ones
	// are dropped when they reach its head).
	slotted := make(map[int]bool)
	var waiting []slotHolder
	unanswered := time.NewTimer(waitAnswer)
	defer unanswered.Stop()
	// While sends are under way, rows that fall due meanwhile are claimed
	// into the free slots at once (when a send ends, and every claimPoll):
	// a slow receiver must not hold them back until its timeout.
	poll := time.NewTicker(claimPoll)
	defer poll.Stop()
	underWay, nextID := 0, 0
	for {
		if free := min(MaxInFlight-len(slotted), MaxUnderWay-underWay); free > 0 && ctx.Err() == nil && failed() == nil {
			batch, err := d.cfg.Outbox.NotificationsClaim(ctx, Claim{Limit: free, Lease: lease,
				PerChannel: PerChannelInFlight, InFlight: d.load(perChannel)})
			if err != nil {
				mu.Lock()
				firstErr = cmp.Or(firstErr, err)
				mu.Unlock()
				// A claim that failed recorded no attempt (a full disk
				// refused its commit): what it read is not sent, or each
				// round would send it again as the same attempt.
				batch = nil
			}
			for _, m := range batch {
				id, ref := nextID, RefOf(m)
				nextID++
				underWay++
				perChannel[ref]++
				slotted[id] = true
				h := slotHolder{id: id, ref: ref, until: time.Now().Add(waitAnswer), replied: new(atomic.Bool)}
				waiting = append(waiting, h)
				wg.Go(func() {
					r, rest, retry, err := d.deliver(ctx, m, h.replied)
					if err != nil {
						mu.Lock()
						firstErr = cmp.Or(firstErr, err)
						mu.Unlock()
					}
					ended <- sendEnd{id: id, ref: ref, reach: r, rest: rest, retry: retry}
				})
			}
		}
		if underWay == 0 {
			break
		}
		for len(waiting) > 0 && !slotted[waiting[0].id] {
			waiting = waiting[1:]
		}
		if len(waiting) > 0 {
			unanswered.Reset(time.Until(waiting[0].until))
		} else {
			unanswered.Stop()
		}
		select {
		case e := <-ended:
			underWay--
			delete(slotted, e.id)
			if perChannel[e.ref]--; perChannel[e.ref] == 0 {
				delete(perChannel, e.ref)
			}
			// Before the next claim, so a channel that just timed out
			// gets no more than its one send back, and one that asked
			// for a wait gets none.
			d.heard(e.ref, e.reach)
			d.rest(e.ref, e.rest)
			d.retryWithin(e.retry)
		case <-unanswered.C:
			now := time.Now()
			// Sends unanswered for answerWithin give their slots to the
			// others and make their channels silent, so receivers that
			// went down together cannot hold every slot until their
			// timeout; an answer, even a late one, gives the share back.
			for len(waiting) > 0 && !waiting[0].until.After(now) {
				// A send whose receiver replied is recording its result:
				// it keeps its slot for the moment that takes, and a slow
				// store makes no channel silent.
				if h := waiting[0]; slotted[h.id] && !h.replied.Load() {
					delete(slotted, h.id)
					d.heard(h.ref, noAnswer)
				}
				waiting = waiting[1:]
			}
		case <-poll.C:
		}
	}
	wg.Wait()
	if wait, ok := d.nextWake(time.Now()); ok {
		d.cfg.WakeWithin(wait)
	}
	return false, failed()
}

// retryMargin is added to the wait for a backoff's end, so the round that
// follows reads the clock at or after it despite millisecond rounding.
const retryMargin = 2 * time.Millisecond

// retryWithin records a backoff of wait recorded now; 0 is none.
func (d *Deliverer) retryWithin(wait time.Duration) {
	if wait <= 0 {
		return
	}
	if at := time.Now().Add(wait); d.retryAt.IsZero() || at.Before(d.retryAt) {
		d.retryAt = at
	}
}

// nextWake is the wait from now until the soonest known backoff or
// channel's wait ends, and whether there is one. A passed backoff is
// forgotten: its row was claimed by the round that just ended, or by
// another process.
func (d *Deliverer) nextWake(now time.Time) (time.Duration, bool) {
	if !d.retryAt.IsZero() && !d.retryAt.After(now) {
		d.retryAt = time.Time{}
	}
	next := d.retryAt
	for _, until := range d.resting {
		if until.After(now) && (next.IsZero() || until.Before(next)) {
			next = until
		}
	}
	if next.IsZero() {
		return 0, false
	}
	return next.Sub(now) + retryMargin, true
}

// slotHolder is a send that holds a slot until it ends or until, past
// answerWithin without an answer, it gives the slot up.
type slotHolder struct {
	id    int
	ref   ChannelRef
	until time.Time
	// replied is set once the receiver's answer has arrived.
	replied *atomic.Bool
}

// reach is what one send learned of its channel's receiver.
type reach int

const (
	// notSent: no request was made (a secret or the URL is wrong) or the
	// round is stopping; the channel's state stays as it was.
	notSent reach = iota
	// answered: the receiver sent an HTTP answer, whatever its status: a
	// refusal costs a slot only briefly.
	answered
	// noAnswer: the request timed out or its connection failed, or it
	// is still unanswered after answerWithin.
	noAnswer
)

// sendEnd is a send that ended, told to its round.
type sendEnd struct {
	id    int
	ref   ChannelRef
	reach reach
	// rest is the wait its receiver asked for; 0 when it asked none.
	rest time.Duration
	// retry is the backoff after which its row is retried; 0 when it
	// is not (delivered, dead, or not recorded).
	retry time.Duration
}

// heard records what a send learned of its channel: a silent one keeps
// one send under way until one of its sends is answered. The latest news
// decides, so an answer after a timeout, or a late answer to a send past
// answerWithin, gives the share back at once; a send that made no request
// says nothing of the receiver.
func (d *Deliverer) heard(ref ChannelRef, r reach) {
	switch r {
	case noAnswer:
		d.silent[ref] = true
	case answered:
		delete(d.silent, ref)
	}
}

// rest keeps ref's notifications back for the wait its receiver asked
// for, from now; a later end of the wait already kept stays.
func (d *Deliverer) rest(ref ChannelRef, wait time.Duration) {
	if wait <= 0 {
		return
	}
	if until := time.Now().Add(wait); until.After(d.resting[ref]) {
		d.resting[ref] = until
	}
}

// load is the per-channel count a claim is given: a silent channel's
// count is raised by the slots of its share it may not use, so the
// store's share check (the same on every store) leaves it
// SilentInFlight sends at most, and a resting channel's to its whole
// share, which leaves it none until its wait has passed.
func (d *Deliverer) load(perChannel map[ChannelRef]int) map[ChannelRef]int {
	now := time.Now()
	for ref, until := range d.resting {
		if !until.After(now) {
			delete(d.resting, ref)
		}
	}
	if len(d.silent) == 0 && len(d.resting) == 0 {
		return perChannel
	}
	out := make(map[ChannelRef]int, len(perChannel)+len(d.silent)+len(d.resting))
	for ref, n := range perChannel {
		out[ref] = n
	}
	for ref := range d.silent {
		out[ref] += PerChannelInFlight - SilentInFlight
	}
	for ref := range d.resting {
		out[ref] = PerChannelInFlight
	}
	return out
}

// The diagnostic codes of a delivery's line: sent, or not (with its reason,
// whether it is retried and when).
const (
	CodeDelivered    = "notify.delivered"
	CodeNotDelivered = "notify.not_delivered"
	// CodeRetriedByHandOutcome is a second line for a row retried by hand:
	// a retry over the CLI writes the database directly, so this line is
	// the server's only trace of it.
	CodeRetriedByHandOutcome = "notify.retried_by_hand_outcome"
)

// sinceRetry is how many attempts m has had since it was last retried by
// hand (all of them when it never was): the limit of attempts and the
// backoff count from the retry.
func sinceRetry(m Message) int { return m.Attempts - m.AttemptsBeforeRetry }

// logRetriedByHand logs the outcome of a delivery of a row retried by hand,
// with when and by whom it was retried and the attempts it had then.
func (d *Deliverer) logRetriedByHand(ctx context.Context, m Message, delivered bool) {
	if m.RetriedAtMs == 0 {
		return
	}
	level, msg := slog.LevelInfo, "a notification retried by hand was delivered"
	if !delivered {
		level, msg = slog.LevelWarn, "a notification retried by hand was not delivered"
	}
	d.cfg.Log.Log(ctx, level, msg, "code", CodeRetriedByHandOutcome, "id", m.ID,
		"channel", m.Channel.Name, "delivered", delivered, "attempt", m.Attempts, "attempts_before_retry", m.AttemptsBeforeRetry,
		"retried_at_ms", m.RetriedAtMs, "retried_by", m.RetriedBy)
}

// deliver sends one claimed row and records the result; it returns what
// the send learned of the receiver, the wait the receiver asked for (0
// when none) and the backoff after which the row is retried (0 when it is
// not). Only a store error is returned: a failed delivery is the row's
// state. replied is set as soon as the receiver's answer has
// arrived, before the result is recorded.
func (d *Deliverer) deliver(ctx context.Context, m Message, replied *atomic.Bool) (reach, time.Duration, time.Duration, error) {
	r, sendErr := d.send(ctx, m)
	if r == answered {
		replied.Store(true)
	}
	if ctx.Err() != nil {
		d.interrupted(ctx, m, sendErr)
		return notSent, 0, 0, nil
	}
	if sendErr == nil {
		d.cfg.Log.Info("notification delivered", "code", CodeDelivered, "id", m.ID, "event", m.Payload.Event, "channel", m.Channel.Name, "attempt", m.Attempts)
		d.logRetriedByHand(ctx, m, true)
		if err := d.cfg.Outbox.NotificationDelivered(ctx, m.ID); err != nil {
			return r, 0, 0, err
		}
		d.cfg.Observe(OutcomeDelivered)
		return r, 0, 0, nil
	}
	dead := sinceRetry(m) >= d.cfg.MaxAttempts
	retryIn := d.Backoff(sinceRetry(m))
	var rest time.Duration
	var asked *askedToWait
	if errors.As(sendErr, &asked) {
		// Sooner, the attempt would only be refused again, and a burst of
		// refusals used up every attempt within the receiver's wait; the
		// channel's other notifications wait as long (Round).
		rest = min(asked.wait, d.cfg.MaxBackoff)
		retryIn = max(retryIn, rest)
	}
	f := failureOf(sendErr)
	attrs := []any{"code", CodeNotDelivered, "id", m.ID, "event", m.Payload.Event, "channel", m.Channel.Name, "attempt", m.Attempts, "dead", dead}
	if !dead {
		// A dead row is never retried on its own: a wait would mislead.
		attrs = append(attrs, "retry_in_ms", retryIn.Milliseconds())
	}
	d.cfg.Log.Warn("notification not delivered", append(attrs, "reason", f.Text, "reason_code", string(f.Reason))...)
	d.logRetriedByHand(ctx, m, false)
	if err := d.cfg.Outbox.NotificationFailed(ctx, m.ID, m.Attempts, retryIn, dead, f); err != nil {
		return r, rest, 0, err
	}
	if dead {
		d.cfg.Observe(OutcomeDead)
		return r, rest, 0, nil
	}
	d.cfg.Observe(OutcomeFailed)
	return r, rest, retryIn, nil
}

// stopWrite bounds the write that records a send the round's end cut
// short: the round's own context has ended by then.
const stopWrite = 2 * time.Second

// interruptedText is the failure a send the round's end cut short records.
const interruptedText = "the server stopped while it was being sent; it is sent again, with the same idempotency key"

// interrupted records a send the end of its round cut short (the server
// stopping, or a cluster replica losing its database): the row is made
// due at once, for another replica now or this server once it is back,
// rather than held by its claim until the lease passes (17 delivery
// timeouts, nearly three minutes by default); a send the receiver took
// before the end is recorded delivered. The write's fence, the attempt
// count, leaves a row another process has claimed since untouched; if the
// write fails, the lease frees the row as before. The attempt counts (the
// request may have reached the receiver) but never makes the row dead.
func (d *Deliverer) interrupted(ctx context.Context, m Message, sendErr error) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopWrite)
	defer cancel()
	attrs := []any{"id", m.ID, "event", m.Payload.Event, "channel", m.Channel.Name, "attempt", m.Attempts}
	if sendErr == nil {
		d.cfg.Log.Info("notification delivered", append([]any{"code", CodeDelivered}, attrs...)...)
		d.logRetriedByHand(wctx, m, true)
		if err := d.cfg.Outbox.NotificationDelivered(wctx, m.ID); err == nil {
			d.cfg.Observe(OutcomeDelivered)
		}
		return
	}
	f := Failure{Reason: ReasonInterrupted, Text: interruptedText}
	d.cfg.Log.Info("notification not delivered: the server stopped while sending it; it is sent again",
		append([]any{"code", CodeNotDelivered}, append(attrs, "dead", false, "retry_in_ms", int64(0), "reason", f.Text, "reason_code", string(f.Reason))...)...)
	if err := d.cfg.Outbox.NotificationFailed(wctx, m.ID, m.Attempts, 0, false, f); err != nil {
		d.cfg.Log.Warn("a notification cut short by the stop could not be given back; it is sent again once its claim's lease passes",
			"code", CodeNotDelivered, "id", m.ID, "error", err.Error())
	}
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

// send makes one delivery of m and says whether its receiver answered.
// What its error says of the receiver's answer never shows a value of the
// channel's secrets: a service that echoes its token back in a refusal
// has it replaced by the secret's name.
func (d *Deliverer) send(ctx context.Context, m Message) (reach, error) {
	sec, err := d.cfg.Secrets(m.Channel.Refs())
	if err != nil {
		return notSent, because(ReasonSecretUnavailable, secretsRefused{err})
	}
	if d.cfg.ConsoleURL != "" && m.Payload.RunID != "" {
		m.Payload.Link = RunLink(d.cfg.ConsoleURL, m.Payload.RunID)
	}
	var r reach
	if m.Channel.Kind == Email {
		r, err = d.sendMail(ctx, m, sec)
	} else {
		r, err = d.sendHTTP(ctx, m, sec)
	}
	return r, redactErr(err, m.Channel, sec)
}

// sendHTTP makes one delivery of m to its HTTP channel.
func (d *Deliverer) sendHTTP(ctx context.Context, m Message, sec Secrets) (reach, error) {
	r, err := Build(m, sec, time.Now())
	if err != nil {
		return notSent, because(ReasonMisconfigured, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return notSent, because(ReasonMisconfigured, fmt.Errorf("channel %s: cannot build the request", m.Channel.Name))
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("User-Agent", UserAgent(d.cfg.Version))
	resp, err := d.cfg.Client.Do(req)
	if err != nil {
		reached := noAnswer
		if errors.As(err, new(*AddressRefusedError)) {
			reached = notSent
		}
		// The URL may hold a token: say only what failed.
		return reached, because(transportKind(err), fmt.Errorf("channel %s: request failed: %s", m.Channel.Name, transportReason(err, d.cfg.Client.Timeout, m.Channel)))
	}
	defer resp.Body.Close() //nolint:errcheck // read only
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 && resp.Header.Get("Location") != "" {
		return answered, because(ReasonReceiverRedirected, fmt.Errorf("channel %s: %s", m.Channel.Name, redirection(resp, m.Channel)))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		mask := newSecretMask(m.Channel, sec)
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, mask.readLimit()))
		wait, asked := retryAfter(resp, time.Now())
		if !asked {
			return answered, because(ReasonReceiverStatus, fmt.Errorf("channel %s: the receiver answered %d%s", m.Channel.Name, resp.StatusCode, mask.saying(snippet)))
		}
		capped := ""
		if wait > d.cfg.MaxBackoff {
			capped = fmt.Sprintf(", more than the %s waited at most", d.cfg.MaxBackoff)
		}
		return answered, because(ReasonReceiverRateLimited, &askedToWait{wait: wait, err: fmt.Errorf("channel %s: the receiver answered %d and asked to wait %s (Retry-After)%s%s",
			m.Channel.Name, resp.StatusCode, wait, capped, mask.saying(snippet))})
	}
	if ack, ok := acknowledgements[m.Channel.Kind]; ok {
		answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxAcknowledgement+1))
		if err := ack.check(resp.StatusCode, answer, newSecretMask(m.Channel, sec)); err != nil {
			reason := ReasonReceiverNotAcknowledged
			if errors.As(err, new(*askedToWait)) {
				reason = ReasonReceiverRateLimited
			}
			return answered, because(reason, fmt.Errorf("channel %s: %w", m.Channel.Name, err))
		}
	}
	return answered, nil
}

// redactErr is err with every value of the channel's secrets it shows
// replaced by the secret's name, quoted as saying quotes an answer or
// not; the wait a refusal asked for and the failure's reason are kept.
func redactErr(err error, c Channel, sec Secrets) error {
	if err == nil {
		return nil
	}
	text := newSecretMask(c, sec).apply(err.Error())
	if text == err.Error() {
		return err
	}
	out := errors.New(text)
	var asked *askedToWait
	if errors.As(err, &asked) {
		out = &askedToWait{wait: asked.wait, err: out}
	}
	if reason := ReasonOf(err); reason != "" {
		out = because(reason, out)
	}
	return out
}

// minRedacted is the shortest secret value a secretMask looks for: the
// secrets store holds none shorter, and a shorter one would blot out
// ordinary words.
const minRedacted = 4

// askedToWait is a refusal that asks for a wait before the next attempt:
// an HTTP Retry-After, or a chat service's rate limit.
type askedToWait struct {
	err  error
	wait time.Duration
}

func (e *askedToWait) Error() string { return e.err.Error() }
func (e *askedToWait) Unwrap() error { return e.err }

// maxRetryAfter bounds a Retry-After as read, far above any wait kept.
const maxRetryAfter = 1000 * time.Hour

// retryAfter reads the wait a 429 or 503 answer asks for in its
// Retry-After header, in seconds or as an HTTP date; asked is false
// without one, with one that does not parse, or with a date already past.
func retryAfter(resp *http.Response, now time.Time) (wait time.Duration, asked bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	h := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if secs, err := strconv.ParseUint(h, 10, 64); err == nil {
		wait = time.Duration(min(secs, uint64(maxRetryAfter/time.Second))) * time.Second
	} else if at, err := http.ParseTime(h); err == nil {
		wait = min(at.Sub(now).Round(time.Second), maxRetryAfter)
	}
	if wait <= 0 {
		return 0, false
	}
	return wait, true
}

// redirection says where a receiver redirected to and what to do: put
// that URL in the channel. The target is shown without its user, query
// and fragment, which may carry a token; for a channel whose URL is a
// secret, or made of one (ServerChan's), its path is left out as well
// (Telegram's, Slack's, Feishu's and ServerChan's carry theirs there),
// saying only whether it is the request's own.
func redirection(resp *http.Response, c Channel) string {
	to, err := resp.Location()
	if err != nil {
		return fmt.Sprintf("the receiver redirected (%d) to a Location that is no URL; put the URL the receiver expects in the channel", resp.StatusCode)
	}
	to.User, to.RawQuery, to.ForceQuery, to.Fragment, to.RawFragment = nil, "", false, "", ""
	if c.URLSecret == "" && c.Kind != ServerChan {
		return fmt.Sprintf("the receiver redirected to %s (%d); put that URL in the channel", to, resp.StatusCode)
	}
	path := "another path (not shown: it may carry the token)"
	if to.EscapedPath() == resp.Request.URL.EscapedPath() {
		path = "the same path"
	}
	to.Path, to.RawPath = "", ""
	where := fmt.Sprintf("in secret %q", c.URLSecret)
	if c.URLSecret == "" {
		// A ServerChan URL made of the SendKey carries it in its path.
		where = "in a secret and name it in urlSecret"
	}
	return fmt.Sprintf("the receiver redirected to %s with %s (%d); put the URL it redirects to %s", to, path, resp.StatusCode, where)
}

// truncate bounds a reason to maxErrorLen bytes, cut at a character so
// the reason stays UTF-8, and never inside a secret's marker.
func truncate(s string) string {
	if len(s) <= maxErrorLen {
		return s
	}
	return s[:cutPoint(s, maxErrorLen)] + "…"
}
