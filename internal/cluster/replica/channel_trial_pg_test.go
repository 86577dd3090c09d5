package replica

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// On the cluster a replica sends a channel's test message itself, for an
// operate token over its API, and says the receiver's status; nothing is
// written to the outbox, and the audit trail records the test, appended
// by the replica's runtime role with the token as who asked.
func TestAReplicaSendsAndAuditsAChannelsTestMessageOverItsAPI(t *testing.T) {
	t.Parallel()
	events := make(chan string, 1)
	recv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		events <- r.Header.Get(notify.HeaderEvent)
	}))
	t.Cleanup(recv.Close)
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, fmt.Sprintf(skippedAlertsDefs, recv.URL+"/hook"))
	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleAdmin)}, "tokens", "create", "ops", "--scope", "operate")
	if code != 0 {
		t.Fatalf("tokens create: exit %d %q", code, out)
	}
	operator := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	r := startReplica(t, bin, env, "replica-channel-test", "--notify-loopback")
	r.await(t, CodeReady, 30*time.Second)
	st, body, _ := httpcall.Bearer(t, http.MethodPost, "http://"+r.addr+"/api/v1/projects/alerts/notifications/channels/hook/test", operator, nil)
	var got view.ChannelTrial
	if err := json.Unmarshal(body, &got); st != http.StatusOK || err != nil || !got.Delivered || got.Status != http.StatusOK {
		t.Fatalf("a channel's test on a replica: %d %s; want it delivered, the receiver answering 200", st, body)
	}
	if e := <-events; e != string(notify.OnTest) {
		t.Fatalf("the receiver got event %q; want a test message", e)
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.notification_outbox WHERE event = 'test'`); n != 0 {
		t.Fatalf("the outbox holds %d test messages; want none: a test is not a notification", n)
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.audit_log WHERE action = 'channel.tested' AND object_name = 'hook' AND project = 'alerts'
		AND actor LIKE 'api:ops@%' AND note = 'delivered, HTTP 200'`); n != 1 {
		t.Fatalf("the audit trail holds %d records of the test by ops, delivered; want 1", n)
	}
}

// A channel is written by a project's admin, whose tasks run on workers:
// a replica started without --notify-loopback sends no notification to
// its own host's loopback, where the services of the replica's host
// listen, and its channel test says why; the receiver gets nothing.
func TestAReplicaSendsNothingToItsOwnLoopbackUnlessStartedWithNotifyLoopback(t *testing.T) {
	t.Parallel()
	var reached atomic.Int64
	recv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) }))
	t.Cleanup(recv.Close)
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, fmt.Sprintf(skippedAlertsDefs, recv.URL+"/hook"))
	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleAdmin)}, "tokens", "create", "ops", "--scope", "operate")
	if code != 0 {
		t.Fatalf("tokens create: exit %d %q", code, out)
	}
	operator := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	r := startReplica(t, bin, env, "replica-no-loopback")
	r.await(t, CodeReady, 30*time.Second)
	st, body, _ := httpcall.Bearer(t, http.MethodPost, "http://"+r.addr+"/api/v1/projects/alerts/notifications/channels/hook/test", operator, nil)
	var got view.ChannelTrial
	if err := json.Unmarshal(body, &got); st != http.StatusOK || err != nil || got.Delivered || got.Reason != string(notify.ReasonMisconfigured) || !strings.Contains(got.Error, "--notify-loopback") {
		t.Fatalf("a channel's test to the replica's loopback: %d %s; want not delivered, misconfigured, naming --notify-loopback", st, body)
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the receiver on the replica's loopback got %d requests; want none", n)
	}
}
