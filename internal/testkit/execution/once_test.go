package execution

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// Shape of the load: onceTriggers triggers firing every second for
// loadSeconds. The rate is what two cores can carry while `go test ./...`
// runs another package's tests beside this one: at 100 a second (one
// shell and one sleep forked for each) those cores had nothing left, the
// replicas answered starts and renewals later than the lease allowed, and
// the Runs lost and retried added load faster than it drained.
const (
	onceTriggers = 50
	loadSeconds  = 8
)

// onceWindow is a six-field cron expression (seconds first) that fires
// every second for loadSeconds, starting at least lead from now, within
// one minute of one hour (UTC), and the end of that window: admission
// stops by itself when the window ends, with no publish racing the
// admissions.
func onceWindow(now time.Time, lead time.Duration) (string, time.Time) {
	start := now.UTC().Add(lead).Truncate(time.Second)
	if start.Second()+loadSeconds > 60 {
		start = start.Truncate(time.Minute).Add(time.Minute)
	}
	expr := fmt.Sprintf("%d-%d %d %d * * *", start.Second(), start.Second()+loadSeconds-1, start.Minute(), start.Hour())
	return expr, start.Add(loadSeconds * time.Second)
}

// onceDoc is onceTriggers triggers on expr and one task whose command
// appends its attempt id to $OUT/ids and sleeps 0, 1 or 2 s (the last hex
// digit of its attempt id decides; no subshell, to spare forks).
func onceDoc(out, expr string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `project: once
tasks:
  - name: append
    env:
      OUT: %s
    script: |
      echo "$QL_ATTEMPT_ID" >> "$OUT/ids"
      case "$QL_ATTEMPT_ID" in
        *[0-4]) ;;
        *[5-9a]) sleep 1 ;;
        *) sleep 2 ;;
      esac
    timeout: 1m
    retry: {maxAttempts: 2, on: [lost]}
triggers:
`, out)
	for i := range onceTriggers {
		fmt.Fprintf(&b, "  - {name: every-second-%03d, task: append, cron: %q, timezone: UTC}\n", i, expr)
	}
	return b.String()
}

// Two replicas admit 50 one-second triggers (six-field cron, seconds
// first) for 8 s and three workers execute them. From durable facts
// alone: every Run is terminal soon (run lease + 20 s) after the last
// admission; no attempt id was executed twice; every executed attempt id
// is an Attempt the database records as started; no Run has more Attempts than its retry policy (2, on lost)
// allows, and every Attempt past the first follows a lost one; no Run
// failed, timed out or was cancelled.
func TestEveryAdmittedRunIsExecutedOnceAcrossReplicasAndWorkers(t *testing.T) {
	// Half the default lease: short enough that a Run whose worker missed
	// its renewals is swept within the drain bound, long enough that a
	// replica slowed by a shared machine still answers a renewal in time.
	// A missed one makes the Run lost, which this test allows but does not
	// aim at.
	c := newCluster(t, 15*time.Second)
	expr, end := onceWindow(time.Now(), 15*time.Second)
	c.apply(t, onceDoc(c.out(), expr))
	r1 := c.startReplica(t, "replica-1", "", "")
	r2 := c.startReplica(t, "replica-2", "", "")
	servers := r1.workerURL() + "," + r2.workerURL()
	for i := range 3 {
		w := c.newWorker(t, fmt.Sprintf("worker-%d", i), 64)
		// Each worker prefers another replica first, so both serve.
		if i%2 == 1 {
			c.startWorker(t, w, r2.workerURL()+","+r1.workerURL(), 48)
		} else {
			c.startWorker(t, w, servers, 48)
		}
	}
	// Admission stops when the window ends: every schedule row's cursor
	// is past it (occurrences a busy replica admitted late were caught up
	// once, as fire_once does) and no round holds a claim.
	eventually(t, 3*time.Minute, "admission to pass the window", func() bool {
		return c.env.Int(t, `SELECT count(*) FROM qinglong.trigger_schedules WHERE next_fire_at_ms IS NULL OR next_fire_at_ms < $1
			OR claim_owner IS NOT NULL`, end.UnixMilli()) == 0
	})
	if n := c.env.Int(t, `SELECT count(*) FROM qinglong.runs`); n < onceTriggers {
		t.Fatalf("only %d Runs were admitted; the load did not happen", n)
	}
	stopMs := c.nowMs(t)
	// Every Run is terminal soon after the last admission, in database
	// time, or the backlog is named by state. The bound is liveness, not
	// speed: a run lease (what a lost worker's Run can take to be swept)
	// plus a margin for workers still draining a backlog on a machine whose
	// cores the rest of the suite shares.
	const drainMargin = 20 * time.Second
	deadline := stopMs + (c.lease + drainMargin).Milliseconds()
	for {
		var now, unfinished int64
		if err := c.env.Super.QueryRow(context.Background(), `SELECT `+pgstore.ClockMsSQL+`, count(*) FILTER (WHERE state NOT IN
			('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')) FROM qinglong.runs`).Scan(&now, &unfinished); err != nil {
			t.Fatal(err)
		}
		if unfinished == 0 {
			t.Logf("every Run was terminal %v after the last admission", time.Duration(now-stopMs)*time.Millisecond)
			break
		}
		if now >= deadline {
			t.Errorf("%d Runs are not terminal %v after the last admission (%s)", unfinished, c.lease+drainMargin, c.runStates(t))
			break
		}
		time.Sleep(pollEvery)
	}
	// Let every Run end, so the file holds every execution there will be.
	eventually(t, 2*time.Minute, "every Run to end", func() bool {
		return c.env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')`) == 0
	})

	ids := readLines(t, filepath.Join(c.out(), "ids"))
	seen := map[string]int{}
	for _, id := range ids {
		seen[id]++
		if seen[id] == 2 {
			t.Errorf("attempt %s was executed twice", id)
		}
	}
	started := map[string]string{}
	rows, err := c.env.Super.Query(context.Background(), `SELECT id::text, state FROM qinglong.attempts WHERE started_at_ms IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	type attempt struct{ ID, State string }
	all, err := pgx.CollectRows(rows, pgx.RowToStructByPos[attempt])
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range all {
		started[a.ID] = a.State
	}
	for id := range seen {
		if _, ok := started[id]; !ok {
			t.Errorf("attempt %s ran but the database has no started Attempt with that id", id)
		}
	}
	for id, state := range started {
		if state == "succeeded" && seen[id] == 0 {
			t.Errorf("attempt %s succeeded without its command running", id)
		}
	}
	over := c.env.Int(t, `SELECT count(*) FROM (SELECT run_id FROM qinglong.attempts GROUP BY run_id HAVING count(*) > 2) o`)
	unexplained := c.env.Int(t, `SELECT count(*) FROM qinglong.attempts a JOIN qinglong.attempts p ON p.run_id = a.run_id AND p.number = a.number - 1
		WHERE p.state <> 'lost'`)
	runs := c.env.Int(t, `SELECT count(*) FROM qinglong.runs`)
	lost := c.env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE state = 'lost'`)
	if over != 0 || unexplained != 0 {
		t.Errorf("%d Runs with more than 2 Attempts, %d Attempts retried after a non-lost end", over, unexplained)
	}
	// Every command exits 0: a Run that failed, timed out or was cancelled
	// was never run as it should have been. Lost is allowed: a worker
	// starved of CPU may miss its renewals, and its Run is then retried.
	if bad := c.env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE state IN ('failed', 'timed_out', 'cancelled')`); bad != 0 {
		t.Errorf("%d Runs failed, timed out or were cancelled; every command exits 0", bad)
	}
	t.Logf("%d Runs (%s), %d lost, %d executions, %d started Attempts, on 2 replicas and 3 workers",
		runs, c.runStates(t), lost, len(ids), len(started))
}
