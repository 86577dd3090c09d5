package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
)

// testDeliveryInFlight: a delivery round sends up to notify.MaxInFlight
// notifications at once, so receivers that do not answer hold only their
// own slots while the others are sent; and a row's attempt is counted only
// once its send is under way (the rows waiting for a slot show 0).
func testDeliveryInFlight(t *testing.T, f Fixture) {
	const n = notify.MaxInFlight + 2
	release := make(chan struct{})
	var arrived atomic.Int64
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The first MaxInFlight requests wait until the test has looked
		// at the outbox with all of them under way.
		if arrived.Add(1) <= notify.MaxInFlight {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(unblock)
	spec := notify.Spec{}
	for i := range n {
		name := fmt.Sprintf("hook%d", i)
		spec.Channels = append(spec.Channels, notify.Channel{Name: name, Kind: notify.Webhook, URL: srv.URL + "/" + name})
		spec.Rules = append(spec.Rules, notify.Rule{On: notify.OnFailed, Channel: name})
	}
	failedWith(t, f, "inflight", spec)
	if got := len(outbox(t, f)); got != n {
		t.Fatalf("%d outbox rows, want %d", got, n)
	}

	done := roundInBackground(t, f)
	deadline := time.Now().Add(20 * time.Second)
	for arrived.Load() < notify.MaxInFlight {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d notifications reached their receivers while the first waits: delivery is not concurrent", arrived.Load(), notify.MaxInFlight)
		}
		select {
		case err := <-done:
			t.Fatalf("the round ended (%v) with %d requests made", err, arrived.Load())
		case <-time.After(10 * time.Millisecond):
		}
	}
	counted := 0
	for _, m := range outbox(t, f) {
		counted += m.Attempts
	}
	if counted != notify.MaxInFlight {
		t.Errorf("with %d sends under way the outbox counts %d attempts: a row is counted before its send", notify.MaxInFlight, counted)
	}
	unblock()
	if err := <-done; err != nil {
		t.Fatalf("round: %v", err)
	}
	for _, m := range outbox(t, f) {
		if m.State != notify.Delivered || m.Attempts != 1 {
			t.Errorf("notification to %s: %s after %d attempts, want delivered at the first", m.Channel.Name, m.State, m.Attempts)
		}
	}
}

// testDeadLoggedWithoutRetry: a failed delivery that will be retried is
// logged with its wait; one that made the notification dead is not, since
// nothing retries it unless someone asks.
func testDeadLoggedWithoutRetry(t *testing.T, f Fixture) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	failedWith(t, f, "deadlog", notify.Spec{Channels: []notify.Channel{{Name: "down", Kind: notify.Webhook, URL: srv.URL}},
		Rules: []notify.Rule{{On: notify.OnFailed, Channel: "down"}}})
	var logged bytes.Buffer
	deliverer := notify.NewDeliverer(notify.DeliveryConfig{Outbox: f.Outbox, MaxAttempts: 2, BaseBackoff: notify.MinBaseBackoff,
		Log: slog.New(slog.NewJSONHandler(&logged, nil))})
	var lines []map[string]any
	for len(lines) < 2 {
		if _, err := deliverer.Round(t.Context()); err != nil {
			t.Fatalf("round: %v", err)
		}
		lines = lines[:0]
		for line := range strings.SplitSeq(strings.TrimSpace(logged.String()), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				continue
			}
			lines = append(lines, rec)
		}
	}
	for i, rec := range lines {
		wait, hasWait := rec["retry_in_ms"].(float64)
		if dead := rec["dead"] == true; dead != (i == 1) || hasWait == dead || hasWait && (wait <= 0 || wait != float64(int64(wait))) {
			t.Errorf("failure %d logged %v: want dead only at the second, and a retry wait only when not dead, in whole milliseconds", i+1, rec)
		}
		// The server's log keys are snake_case (docs/operations.md).
		if rec["reason_code"] != string(notify.ReasonReceiverStatus) || rec["retryIn"] != nil || rec["reasonCode"] != nil {
			t.Errorf("failure %d logged %v: want its reason's code as reason_code and no camelCase key", i+1, rec)
		}
	}
	if ms := outbox(t, f); len(ms) != 1 || ms[0].State != notify.Dead || ms[0].Attempts != 2 {
		t.Fatalf("outbox %+v, want the row dead after 2 attempts", ms)
	}
}

// testDeliveryClaimsWhatFallsDueMeanwhile: a notification that falls due
// while a round waits on a receiver that does not answer is sent in that
// round, before the slow send ends: the slow receiver holds back only its
// own deliveries.
func testDeliveryClaimsWhatFallsDueMeanwhile(t *testing.T, f Fixture) {
	rc := newSlowAndFast(t)
	d := failedWith(t, f, "meanwhile", rc.spec)

	done := roundInBackground(t, f)
	waitUntil(t, "the first fast notification to arrive", func() bool { return rc.fast.Load() == 1 })
	// The round now waits on the slow send; a second failure falls due.
	runFinished(t, f, d.Trigger.TriggerID, 2, run.AttemptFailed)
	waitUntil(t, "the second fast notification to arrive while the slow one waits", func() bool { return rc.fast.Load() == 2 })
	select {
	case err := <-done:
		t.Fatalf("the round ended (%v) while a send was still under way", err)
	default:
	}
	rc.unblock()
	if err := <-done; err != nil {
		t.Fatalf("round: %v", err)
	}
}

// testSlowChannelHoldsOnlyItsShare: a receiver that does not answer, with
// a backlog of its own, holds at most its channel's share of a round's
// send slots, so every notification of another channel is sent while it
// waits (with all slots to take, its backlog filled them one by one and
// the other channel's last notifications waited for its timeout).
func testSlowChannelHoldsOnlyItsShare(t *testing.T, f Fixture) {
	const runs = 2 * notify.MaxInFlight
	rc := newSlowAndFast(t)
	d := failedWith(t, f, "share", rc.spec)
	for i := 2; i <= runs; i++ {
		runFinished(t, f, d.Trigger.TriggerID, i, run.AttemptFailed)
	}
	done := roundInBackground(t, f)
	waitUntil(t, "every notification to the fast receiver while the slow one waits", func() bool { return rc.fast.Load() == runs })
	if n := rc.slow.Load(); n > notify.PerChannelInFlight {
		t.Fatalf("%d sends to the receiver that does not answer are under way, want at most its share %d", n, notify.PerChannelInFlight)
	}
	rc.unblock()
	if err := <-done; err != nil {
		t.Fatalf("round: %v", err)
	}
	for _, m := range outbox(t, f) {
		if m.State != notify.Delivered {
			t.Errorf("notification to %s: %s, want delivered once the slow receiver answers", m.Channel.Name, m.State)
		}
	}
}

// slowAndFast are two webhook receivers and a project's settings that
// send every failure to both: "slow" answers only once unblocked (or its
// request is cancelled), "fast" at once; each counts its requests.
type slowAndFast struct {
	spec       notify.Spec
	slow, fast atomic.Int64
	unblock    func()
}

func newSlowAndFast(t *testing.T) *slowAndFast {
	rc := &slowAndFast{}
	release := make(chan struct{})
	var releaseOnce sync.Once
	rc.unblock = func() { releaseOnce.Do(func() { close(release) }) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/slow") {
			rc.slow.Add(1)
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		} else {
			rc.fast.Add(1)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	// Before Close, which waits for the handlers still holding requests.
	t.Cleanup(rc.unblock)
	rc.spec = notify.Spec{
		Channels: []notify.Channel{{Name: "slow", Kind: notify.Webhook, URL: srv.URL + "/slow"}, {Name: "fast", Kind: notify.Webhook, URL: srv.URL + "/fast"}},
		Rules:    []notify.Rule{{On: notify.OnFailed, Channel: "slow"}, {On: notify.OnFailed, Channel: "fast"}},
	}
	return rc
}

// waitUntil polls cond for up to 20 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// roundInBackground runs one delivery round (a minute's timeout per send)
// until it ends or the test does, and sends its error on the channel.
func roundInBackground(t *testing.T, f Fixture) <-chan error {
	deliverer := notify.NewDeliverer(notify.DeliveryConfig{Outbox: f.Outbox, Client: &http.Client{Timeout: time.Minute}})
	done := make(chan error, 1)
	go func() {
		_, err := deliverer.Round(t.Context())
		done <- err
	}()
	return done
}

// healthyNotifications is how many notifications the healthy channel of
// testHealthyFlowsBesideSilentChannels is owed, as many as each channel
// that does not answer.
const healthyNotifications = 20

// silentTimeout is the delivery timeout of the tests whose receivers do
// not answer: short, since the first round's sends to them all wait it
// out, and far above a send to a receiver that answers at once.
const silentTimeout = time.Second

// testHealthyFlowsBesideSilentChannels: with `silent` channels whose
// receivers never answer, each with a backlog, a healthy channel's
// notifications are all delivered within the first timeouts of the
// silent ones: a channel whose send timed out holds one slot until one is
// answered, so the silent ones cannot hold all the slots round after
// round. With every silent channel holding its whole share again after
// each timeout, the healthy channel got a slot or two per timeout and
// waited a whole timeout for the next, again and again.
func testHealthyFlowsBesideSilentChannels(silent int) func(*testing.T, Fixture) {
	return func(t *testing.T, f Fixture) {
		// Each silent channel's first round takes at most its share, and
		// each later send one timeout: by two timeouts after its first
		// round the healthy channel has been given slots to spare.
		const bound = notify.PerChannelInFlight + 2
		stop := make(chan struct{})
		sent := make([]atomic.Int64, silent)
		var healthy atomic.Int64
		var overBound sync.Once
		healthyDone, silentOver := make(chan []int64, 1), make(chan string, 1)
		snapshot := func() []int64 {
			out := make([]int64, silent)
			for i := range sent {
				out[i] = sent[i].Load()
			}
			return out
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var i int
			if _, err := fmt.Sscanf(r.URL.Path, "/silent%d", &i); err == nil {
				if n := sent[i].Add(1); n > bound {
					overBound.Do(func() {
						silentOver <- fmt.Sprintf("silent%d got its send %d with %d of the healthy channel's %d notifications delivered", i, n,
							healthy.Load(), healthyNotifications)
					})
				}
				select {
				case <-r.Context().Done():
				case <-stop:
				}
				return
			}
			if healthy.Add(1) == healthyNotifications {
				healthyDone <- snapshot()
			}
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(srv.Close)
		// Before Close, which waits for the handlers still holding requests.
		t.Cleanup(func() { close(stop) })
		failedBesideHealthy(t, f, "silent", silent, srv.URL)

		start := time.Now()
		done, stopRound := roundWithTimeout(t, f, silentTimeout)
		defer stopRound()
		select {
		case counts := <-healthyDone:
			t.Logf("%d notifications to the healthy channel beside %d silent ones took %s (timeout %s); sends to the silent ones meanwhile: %v",
				healthyNotifications, silent, time.Since(start).Round(time.Millisecond), silentTimeout, counts)
		case what := <-silentOver:
			t.Fatalf("%s: the silent channels took their whole share again after a timeout, so the healthy channel waited a whole timeout for its slots, round after round", what)
		case err := <-done:
			t.Fatalf("the round ended (%v) before the healthy channel's notifications were delivered", err)
		}
	}
}

// failedBesideHealthy publishes a trigger whose failures notify n channels
// named prefix0, prefix1, … at url/<name> and one named healthy at
// url/healthy, and fails healthyNotifications of its Runs.
func failedBesideHealthy(t *testing.T, f Fixture, prefix string, n int, url string) {
	t.Helper()
	spec := notify.Spec{}
	for i := range n {
		name := fmt.Sprintf("%s%d", prefix, i)
		spec.Channels = append(spec.Channels, notify.Channel{Name: name, Kind: notify.Webhook, URL: url + "/" + name})
		spec.Rules = append(spec.Rules, notify.Rule{On: notify.OnFailed, Channel: name})
	}
	spec.Channels = append(spec.Channels, notify.Channel{Name: "healthy", Kind: notify.Webhook, URL: url + "/healthy"})
	spec.Rules = append(spec.Rules, notify.Rule{On: notify.OnFailed, Channel: "healthy"})
	d := failedWith(t, f, prefix, spec)
	for i := 2; i <= healthyNotifications; i++ {
		runFinished(t, f, d.Trigger.TriggerID, i, run.AttemptFailed)
	}
}

// hungTimeout is the delivery timeout of
// testHealthyFlowsBeforeHungSendsTimeOut: long, so that however slow the
// machine no hung send times out unless the healthy channel waits for it,
// and long enough that an unanswered send gives its slot up after the
// same second as at the default timeout.
const hungTimeout = time.Minute

// testHealthyFlowsBeforeHungSendsTimeOut: with `hung` channels whose
// receivers went down together, each with a backlog, enough to fill every
// delivery slot before any of their sends times out, a healthy channel's
// notifications are all delivered while every hung send is still open:
// a send unanswered for a moment gives its slot to the others and makes
// its channel silent. With the slots held until the hung sends timed out,
// the healthy channel waited that whole timeout.
func testHealthyFlowsBeforeHungSendsTimeOut(hung int) func(*testing.T, Fixture) {
	return func(t *testing.T, f Fixture) {
		stop := make(chan struct{})
		var open, ended, healthy atomic.Int64
		type snapshot struct{ open, ended int64 }
		healthyDone := make(chan snapshot, 1)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Read to its end, the body lets the server watch the
			// connection, so a send that timed out ends the request's
			// context.
			_, _ = io.Copy(io.Discard, r.Body)
			if r.URL.Path != "/healthy" {
				open.Add(1)
				select {
				case <-r.Context().Done():
					ended.Add(1)
				case <-stop:
				}
				open.Add(-1)
				return
			}
			if healthy.Add(1) == healthyNotifications {
				healthyDone <- snapshot{open: open.Load(), ended: ended.Load()}
			}
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(srv.Close)
		// Before Close, which waits for the handlers still holding requests.
		t.Cleanup(func() { close(stop) })
		failedBesideHealthy(t, f, "hung", hung, srv.URL)

		done, stopRound := roundWithTimeout(t, f, hungTimeout)
		defer stopRound()
		select {
		case got := <-healthyDone:
			if got.ended != 0 {
				t.Fatalf("the healthy channel's %d notifications were delivered only after %d hung sends ended: it waited for their timeout",
					healthyNotifications, got.ended)
			}
			if got.open < notify.MaxInFlight {
				t.Fatalf("%d hung sends were open, fewer than the %d slots: the hung receivers never held every slot, so nothing was shown",
					got.open, notify.MaxInFlight)
			}
		case err := <-done:
			t.Fatalf("the round ended (%v) before the healthy channel's notifications were delivered", err)
		case <-time.After(2 * hungTimeout):
			t.Fatalf("the healthy channel's notifications were not all delivered within %s beside %d hung channels", 2*hungTimeout, hung)
		}
	}
}

// releaseAfterCap is how long the receivers of testHungSendsBoundedInAll
// hold every send once notify.MaxUnderWay are open: twice the second
// after which a send leaves its slot, so a round without the bound would
// start more sends meanwhile.
const releaseAfterCap = 2 * time.Second

// testHungSendsBoundedInAll: when every receiver hangs (a total outage),
// the sends that gave their slots up still count against
// notify.MaxUnderWay, so no send starts while that many are open. Once
// that many have been open for a while, the receivers refuse
// notify.MaxInFlight of them, and the round sends the rest of the
// channels' notifications in their place.
func testHungSendsBoundedInAll(t *testing.T, f Fixture) {
	const channels = notify.MaxUnderWay + notify.MaxInFlight
	stop := make(chan struct{})
	var (
		mu       sync.Mutex
		open     int
		arrived  int
		held     []chan struct{}
		capped   bool
		overOnce sync.Once
	)
	over, allSent := make(chan string, 1), make(chan struct{})
	releaseSome := time.AfterFunc(time.Hour, func() {
		mu.Lock()
		defer mu.Unlock()
		for range notify.MaxInFlight {
			close(held[0])
			held = held[1:]
			open--
		}
	})
	releaseSome.Stop()
	t.Cleanup(func() { releaseSome.Stop() })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		release := make(chan struct{})
		mu.Lock()
		if open >= notify.MaxUnderWay {
			overOnce.Do(func() { over <- fmt.Sprintf("a send started while %d were open", open) })
		}
		open++
		if arrived++; arrived == channels {
			close(allSent)
		}
		held = append(held, release)
		if open == notify.MaxUnderWay && !capped {
			capped = true
			releaseSome.Reset(releaseAfterCap)
		}
		mu.Unlock()
		select {
		case <-release:
			w.WriteHeader(http.StatusServiceUnavailable)
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(srv.Close)
	// Before Close, which waits for the handlers still holding requests.
	t.Cleanup(func() { close(stop) })
	spec := notify.Spec{}
	for i := range channels {
		name := fmt.Sprintf("down%d", i)
		spec.Channels = append(spec.Channels, notify.Channel{Name: name, Kind: notify.Webhook, URL: srv.URL + "/" + name})
		spec.Rules = append(spec.Rules, notify.Rule{On: notify.OnFailed, Channel: name})
	}
	failedWith(t, f, "outage", spec)

	done, stopRound := roundWithTimeout(t, f, hungTimeout)
	defer stopRound()
	select {
	case <-allSent:
		select {
		case what := <-over:
			t.Fatalf("%s: the sends under way are not bounded by %d", what, notify.MaxUnderWay)
		default:
		}
	case what := <-over:
		t.Fatalf("%s: the sends under way are not bounded by %d", what, notify.MaxUnderWay)
	case err := <-done:
		t.Fatalf("the round ended (%v) before every channel's notification was sent", err)
	case <-time.After(hungTimeout / 2):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("%d of %d notifications sent within %s, %d sends open: the round did not fill the room the refused sends left", arrived, channels, hungTimeout/2, open)
	}
}

// testAnsweringReceiverGetsItsShareBack: a receiver whose sends timed out
// holds one slot; once one of its sends is answered, its channel's
// backlog is sent side by side again, its whole share at once.
func testAnsweringReceiverGetsItsShareBack(t *testing.T, f Fixture) {
	const share = notify.PerChannelInFlight
	stop := make(chan struct{})
	var arrived atomic.Int64
	var mu sync.Mutex
	held := 0
	full, lonely := make(chan struct{}), make(chan struct{})
	var fullOnce, lonelyOnce sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read to its end, the body lets the server watch the connection,
		// so a send that timed out ends the request's context.
		_, _ = io.Copy(io.Discard, r.Body)
		switch n := arrived.Add(1); {
		case n <= share:
			// The first round: no answer, so each send times out.
			select {
			case <-r.Context().Done():
			case <-stop:
			}
			return
		case n == share+1:
			// The receiver is back: this send (the one slot of a silent
			// channel) is answered.
		default:
			// Held until the channel's whole share is under way at once.
			mu.Lock()
			if held++; held == share {
				fullOnce.Do(func() { close(full) })
			}
			mu.Unlock()
			select {
			case <-full:
			case <-r.Context().Done():
				lonelyOnce.Do(func() { close(lonely) })
				return
			case <-stop:
				return
			}
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })
	spec := notify.Spec{Channels: []notify.Channel{{Name: "back", Kind: notify.Webhook, URL: srv.URL + "/back"}},
		Rules: []notify.Rule{{On: notify.OnFailed, Channel: "back"}}}
	d := failedWith(t, f, "back", spec)
	for i := 2; i <= 2*share+2; i++ {
		runFinished(t, f, d.Trigger.TriggerID, i, run.AttemptFailed)
	}

	done, stopRound := roundWithTimeout(t, f, 2*silentTimeout)
	defer stopRound()
	select {
	case <-full:
	case <-lonely:
		t.Fatalf("after an answer a send to the receiver waited alone for its timeout: the channel did not get its share of %d back", share)
	case err := <-done:
		t.Fatalf("the round ended (%v) before the receiver that answers again was sent %d notifications at once", err, share)
	}
}

// roundWithTimeout runs one delivery round whose sends time out after
// timeout; the function returned stops it and waits for its end.
func roundWithTimeout(t *testing.T, f Fixture, timeout time.Duration) (<-chan error, func()) {
	deliverer := notify.NewDeliverer(notify.DeliveryConfig{Outbox: f.Outbox, Client: &http.Client{Timeout: timeout}})
	ctx, cancel := context.WithCancel(t.Context())
	done, exited := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(exited)
		_, err := deliverer.Round(ctx)
		done <- err
	}()
	return done, func() {
		cancel()
		<-exited
	}
}

// testRoundWakesAtTheBackoffsEnd: a round that recorded a failed
// delivery asks its loop to run the next round when the row's backoff
// ends, not at the loop's cadence (5 s on the edge profile, whatever the
// backoff); a round before then asks the same, since the row is still
// waiting; a failure that made a notification dead asks nothing. (That
// the retry then goes out at that instant is the single-node server's
// test: the fixtures' clocks are not the wall clock.)
func testRoundWakesAtTheBackoffsEnd(t *testing.T, f Fixture) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	d := failedWith(t, f, "wake", notify.Spec{Channels: []notify.Channel{{Name: "flaky", Kind: notify.Webhook, URL: srv.URL}},
		Rules: []notify.Rule{{On: notify.OnFailed, Channel: "flaky"}}})
	const backoff = 3 * time.Second
	var asked []time.Duration
	deliverer := notify.NewDeliverer(notify.DeliveryConfig{Outbox: f.Outbox, MaxAttempts: 3, BaseBackoff: backoff,
		WakeWithin: func(wait time.Duration) { asked = append(asked, wait) }})
	round := func() {
		t.Helper()
		if _, err := deliverer.Round(t.Context()); err != nil {
			t.Fatalf("round: %v", err)
		}
	}
	round()
	if ms := outbox(t, f); len(ms) != 1 || ms[0].State != notify.Pending || ms[0].Attempts != 1 {
		t.Fatalf("outbox %+v, want the row pending after one failed attempt", ms)
	}
	// The backoff is the base less up to a fifth at random, plus a
	// margin of milliseconds, less the time the round took after
	// recording the failure (a second at most, however loaded).
	if len(asked) != 1 || asked[0] < backoff*4/5-time.Second || asked[0] > backoff+10*time.Millisecond {
		t.Fatalf("the failing round asked for waits %v, want one of about %s", asked, backoff)
	}
	round()
	if len(asked) != 2 || asked[1] > asked[0] || asked[1] <= 0 {
		t.Fatalf("a round within the backoff asked for waits %v, want a second no longer than the first", asked)
	}

	runFinished(t, f, d.Trigger.TriggerID, 2, run.AttemptFailed)
	last := notify.NewDeliverer(notify.DeliveryConfig{Outbox: f.Outbox, MaxAttempts: 1,
		WakeWithin: func(wait time.Duration) {
			t.Errorf("a round whose only failure was a last attempt asked for a wait of %s", wait)
		}})
	if _, err := last.Round(t.Context()); err != nil {
		t.Fatalf("round: %v", err)
	}
}

// testAStopGivesBackTheSendItCutShort: a round ended while a send waits
// on its receiver (the server stopping) records the send as interrupted
// and makes its row due at once, so the next claim, by another replica or
// the server back from its restart, sends it again now rather than once
// the claim's lease (17 delivery timeouts) has passed.
func testAStopGivesBackTheSendItCutShort(t *testing.T, f Fixture) {
	rc := newSlowAndFast(t)
	failedWith(t, f, "stopped", notify.Spec{Channels: rc.spec.Channels[:1], Rules: rc.spec.Rules[:1]})
	ctx, stop := context.WithCancel(t.Context())
	deliverer := notify.NewDeliverer(notify.DeliveryConfig{Outbox: f.Outbox, Client: &http.Client{Timeout: time.Minute}})
	done := make(chan error, 1)
	go func() {
		_, err := deliverer.Round(ctx)
		done <- err
	}()
	waitUntil(t, "the send to reach its receiver", func() bool { return rc.slow.Load() == 1 })
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the stopped round: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the round did not end within 20s of its stop")
	}
	if ms := outbox(t, f); len(ms) != 1 || ms[0].State != notify.Pending || ms[0].Attempts != 1 || ms[0].LastErrorReason != notify.ReasonInterrupted {
		t.Fatalf("outbox %+v, want the row pending after its one interrupted attempt, saying so", ms)
	}
	claimed, err := f.Outbox.NotificationsClaim(t.Context(), notify.Claim{Limit: 1, Lease: time.Hour, PerChannel: notify.PerChannelInFlight})
	if err != nil || len(claimed) != 1 || claimed[0].Attempts != 2 {
		t.Fatalf("a claim after the stop: %+v, %v; want the row at once, at its second attempt", claimed, err)
	}
}
