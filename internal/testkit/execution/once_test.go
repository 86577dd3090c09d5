package execution

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// onceDoc is 100 triggers firing every second on one task whose command
// appends its attempt id to $OUT/ids and sleeps 0, 1 or 2 s (the last hex
// digit of its attempt id decides; no subshell, to spare forks). enabled
// false stops admission.
func onceDoc(out string, enabled bool) string {
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
	for i := range 100 {
		fmt.Fprintf(&b, "  - {name: every-second-%03d, task: append, cron: \"* * * * * *\", timezone: UTC, enabled: %t}\n", i, enabled)
	}
	return b.String()
}

// Two replicas admit 100 one-second triggers (six-field cron, seconds
// first) and three workers execute them for about 8 s. Then admission
// stops, and from durable facts alone: every Run admitted more than (run
// lease + 5 s) before the stop is terminal; no attempt id was executed
// twice; every executed attempt id is an Attempt the database records as
// started; no Run has more Attempts than its retry policy (2, on lost)
// allows, and every Attempt past the first follows a lost one; no Run
// failed, timed out or was cancelled.
func TestEveryAdmittedRunIsExecutedOnceAcrossReplicasAndWorkers(t *testing.T) {
	// A 5 s lease: 100 commands a second on 2 cores leave renewals little
	// slack, and a missed one makes the Run lost, which this test allows
	// but does not aim at.
	c := newCluster(t, 5*time.Second)
	c.apply(t, onceDoc(c.out(), true))
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
	time.Sleep(8 * time.Second) // the load, not an assertion
	// Publishing is SERIALIZABLE and the admissions keep writing the same
	// schedule rows; the operator's answer to "retry later" is to retry.
	tries := c.applyRetrying(t, onceDoc(c.out(), false), 40)
	stopMs := c.nowMs(t)
	horizon := stopMs - (c.lease + 5*time.Second).Milliseconds()

	unfinished := c.env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE created_at_ms < $1
		AND state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')`, horizon)
	old := c.env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE created_at_ms < $1`, horizon)
	var states string
	if err := c.env.Super.QueryRow(context.Background(), `SELECT string_agg(state || ' ' || n, ', ') FROM (SELECT state, count(*) n FROM qinglong.runs
		WHERE created_at_ms < $1 GROUP BY state) s`, horizon).Scan(&states); err != nil {
		t.Fatal(err)
	}
	if old < 200 {
		t.Fatalf("only %d Runs admitted before the horizon; the load did not happen", old)
	}
	if unfinished != 0 {
		t.Errorf("%d of the %d Runs admitted more than %v before the stop are not terminal (%s)", unfinished, old, c.lease+5*time.Second, states)
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
	t.Logf("%d Runs (%d before the horizon: %s), %d lost, %d executions, %d started Attempts, on 2 replicas and 3 workers; disabling the triggers took %d applies",
		runs, old, states, lost, len(ids), len(started), tries)
}
