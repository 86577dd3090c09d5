package replica

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/scheduler"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// stoppedAt is when r logged that its stop ended.
func stoppedAt(t *testing.T, r *child) time.Time {
	t.Helper()
	stopped := r.logs.withCode(CodeStopped)
	if len(stopped) != 1 {
		t.Fatalf("%d %s lines; want one:\n%s", len(stopped), CodeStopped, r.logs)
	}
	return logTime(t, stopped[0])
}

func logTime(t *testing.T, rec map[string]any) time.Time {
	t.Helper()
	return recordTime(t, rec, "time")
}

// recordTime is the time a record's attribute key gives.
func recordTime(t *testing.T, rec map[string]any, key string) time.Time {
	t.Helper()
	s, _ := rec[key].(string)
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("record %v: %v", rec, err)
	}
	return at
}

func TestSIGTERMDrainsWithinTheStopTimeoutAndStartsNoRoundAfterAdmissionCloses(t *testing.T) {
	t.Parallel()
	const stopTimeout = 2 * time.Second
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("drain", 1000, clustertest.QuietCron()))
	env.MakeDue(t, 1000)
	r := startReplica(t, bin, env, "replica-d", "--page-size", "256", "--stop-timeout", stopTimeout.String())
	// Let one full round through, then hold the runs table so the next
	// round is caught with its admissions in flight when SIGTERM lands.
	r.await(t, schedule.CodeRound, 30*time.Second)
	lock, err := env.Super.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback(context.Background()) // released below; no-op then
	if _, err := lock.Exec(context.Background(), `LOCK TABLE qinglong.runs IN EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "a round blocked mid-admission", func() bool {
		return env.Int(t, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'qinglong:replica-d' AND wait_event_type = 'Lock'`) > 0
	})
	sent := r.signal(t, syscall.SIGTERM, stopTimeout+5*time.Second)
	if err := lock.Rollback(context.Background()); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "replica-d's backends to end", func() bool { return len(backends(t, env, "replica-d")) == 0 })
	if code := r.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, r.logs)
	}
	// The stop's deadline runs from the signal: it must end by then, and
	// say so, with a second for the stop to act on its deadline. It ends
	// at its log line: what the process does after it (exit, being reaped
	// by the test) is no part of the stop, and a loaded machine may take
	// long to do it.
	if took := stoppedAt(t, r).Sub(sent); took > stopTimeout+time.Second {
		t.Fatalf("drain took %s, stop timeout %s", took, stopTimeout)
	}

	codes := r.logs.codes()
	closed, stopped, exited := slices.Index(codes, CodeAdmissionClosed), slices.Index(codes, scheduler.CodeStopped), slices.Index(codes, CodeStopped)
	if closed < 0 || stopped < closed || exited < stopped {
		t.Fatalf("stop order admission_closed=%d scheduler.stopped=%d serve.stopped=%d; want admission → scheduler → rest:\n%s", closed, stopped, exited, r.logs)
	}
	closedAt := logTime(t, r.logs.withCode(CodeAdmissionClosed)[0])
	late := 0
	for _, rec := range r.logs.withCode(schedule.CodeRound) {
		// A round's line may be written well after it ended (a page
		// committed in flight is reported once the next is taken), so
		// its times come from what it says, not from when it was said;
		// duration_ms is whole milliseconds, cut down.
		started := recordTime(t, rec, "started")
		if started.Add(time.Duration(rec["duration_ms"].(float64)+1) * time.Millisecond).Before(closedAt) {
			continue
		}
		late++
		if !started.Before(closedAt) {
			t.Fatalf("a round started at %s, after admission closed at %s", started, closedAt)
		}
	}
	if late > 1 {
		t.Fatalf("%d rounds ended after admission closed; only the one in flight may", late)
	}
	if len(r.logs.withCode(scheduler.CodeUnavailable)) != 0 {
		t.Fatalf("abandoning a round on stop was mistaken for a lost database:\n%s", r.logs)
	}

	o := env.Count(t)
	if o.Duplicates != 0 || o.Malformed != 0 || o.Runs != admittedTotal(r.logs) {
		t.Fatalf("occurrences %+v, logged admissions %d: every Run must come from a reported round", o, admittedTotal(r.logs))
	}
	if o.Runs >= 1000 {
		t.Fatalf("the whole backlog (%d) drained before SIGTERM; the test did not stop mid-backlog", o.Runs)
	}
	// Nothing of the abandoned round was written (above), and its claims —
	// the page whose commit the stop cut short and the page claimed beside
	// it — were given back, for another replica to take at once rather
	// than after their lease.
	var released float64
	for _, rec := range r.logs.withCode(scheduler.CodeReleased) {
		released += rec["rows"].(float64)
	}
	if released == 0 {
		t.Fatalf("the stop gave back no claim: the round was not in flight:\n%s", r.logs)
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.trigger_schedules WHERE claim_owner = 'replica-d'`); n != 0 {
		t.Fatalf("%d claims of the stopped replica are left (it gave back %.0f)", n, released)
	}
}

func TestSIGTERMMidBackoffStopsPromptlyAndCleanly(t *testing.T) {
	t.Parallel()
	const stopTimeout = time.Second
	bin := buildQL(t)
	env := clustertest.New(t)
	// Nothing listens where this URL points: every activation fails on
	// the network, which a retry may cure, so the replica keeps backing off.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(env.URL(pgstore.RoleRuntime))
	if err != nil {
		t.Fatal(err)
	}
	u.Host = ln.Addr().String()
	ln.Close()
	r := startReplicaOn(t, bin, env, u.String(), "replica-b", "--stop-timeout", stopTimeout.String())
	eventually(t, 10*time.Second, "a failed activation", func() bool { return len(r.logs.withCode(CodeActivationFailed)) >= 1 })
	if code, reason := r.readyz(t); code != http.StatusServiceUnavailable || reason != ReasonStarting {
		t.Fatalf("readyz %d %q while the first activation is retried", code, reason)
	}
	sent := r.signal(t, syscall.SIGTERM, stopTimeout+5*time.Second)
	// Until the stop's log line, as in the test above.
	if code, took := r.cmd.ProcessState.ExitCode(), stoppedAt(t, r).Sub(sent); code != 0 || took > stopTimeout+time.Second {
		t.Fatalf("exit %d after a stop of %s; want 0 within the stop timeout %s:\n%s", code, took, stopTimeout, r.logs)
	}
	codes := r.logs.codes()
	if closed, stopped := slices.Index(codes, CodeAdmissionClosed), slices.Index(codes, CodeStopped); closed < 0 || stopped < closed {
		t.Fatalf("stop order admission_closed=%d serve.stopped=%d:\n%s", closed, stopped, r.logs)
	}
}
