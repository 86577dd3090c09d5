package replica

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// skippedAlertsDefs is a project whose minutely trigger, under misfire:
// skip, passes occurrences over and whose rule sends each such decision to
// the webhook at the URL it is formatted with.
const skippedAlertsDefs = `project: alerts
notifications:
  channels:
    hook: {type: webhook, url: %q}
  rules:
    - {on: skipped, channel: hook}
tasks:
  - name: noop
    command: ["/bin/true"]
triggers:
  - name: minutely
    task: noop
    cron: "* * * * *"
    timezone: UTC
    misfire: skip
`

// On the cluster, end to end: occurrences a misfire: skip trigger passes
// over raise a skipped notification in the admission's transaction, and a
// replica delivers it to a webhook that refuses the first delivery: the
// retry carries the same idempotency key, and each key is accepted once.
func TestAReplicaDeliversEachNotificationOncePerKey(t *testing.T) {
	t.Parallel()
	type delivery struct {
		key    string
		status int
	}
	var (
		mu  sync.Mutex
		got []delivery
	)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		status := http.StatusOK
		if len(got) == 0 {
			status = http.StatusServiceUnavailable
		}
		got = append(got, delivery{key: r.Header.Get(notify.HeaderIdempotencyKey), status: status})
		mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(recv.Close)
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, fmt.Sprintf(skippedAlertsDefs, recv.URL+"/hook"))
	// A short claim lease: a round that took the row just as MakeDue
	// moved it below races and leaves its claim to expire before the row
	// is taken again.
	r := startReplica(t, bin, env, "replica-notify", "--notify-loopback", "--notify-backoff", "200ms", "--lease", "3s")
	r.await(t, CodeReady, 30*time.Second)
	deadline := time.Now().Add(30 * time.Second)
	for env.Int(t, `SELECT count(*) FROM qinglong.trigger_schedules WHERE next_fire_at_ms IS NOT NULL`) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the replica never initialised the schedule")
		}
		time.Sleep(50 * time.Millisecond)
	}
	env.MakeDue(t, 5*60_000)
	// The wait is for the refused delivery's key to come back accepted and
	// for every notification to be delivered: a replica started just after
	// a minute boundary may raise a second notification of its own, whose
	// delivery can come first.
	refusedAccepted := func() bool {
		mu.Lock()
		defer mu.Unlock()
		for i := 1; i < len(got); i++ {
			if got[i].key == got[0].key && got[i].status == http.StatusOK {
				return true
			}
		}
		return false
	}
	deadline = time.Now().Add(30 * time.Second)
	for !refusedAccepted() || env.Int(t, `SELECT count(*) FROM qinglong.notification_outbox WHERE state <> 'delivered'`) > 0 {
		if time.Now().After(deadline) {
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("the refused notification was never accepted under its key, or one stays undelivered; the receiver got %v", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	accepted := map[string]int{}
	for _, d := range got {
		if d.key == "" {
			t.Fatalf("a delivery without an idempotency key: %v", got)
		}
		if d.status == http.StatusOK {
			accepted[d.key]++
		}
	}
	if got[0].status != http.StatusServiceUnavailable || accepted[got[0].key] != 1 {
		t.Fatalf("deliveries %v; want the refused one retried under its key and accepted once", got)
	}
	for k, n := range accepted {
		if n != 1 {
			t.Fatalf("key %s accepted %d times, want once", k, n)
		}
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.notification_outbox`); int(n) != len(accepted) {
		t.Fatalf("%d notifications in the outbox, %d keys accepted; want each delivered once", n, len(accepted))
	}
}
