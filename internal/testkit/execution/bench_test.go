package execution

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// noopDoc is n quiet triggers on one task running /bin/true.
func noopDoc(n int) string {
	var b strings.Builder
	b.WriteString("project: bench\ntasks:\n  - name: noop\n    command: [\"/bin/true\"]\n    timeout: 1m\ntriggers:\n")
	cron := clustertest.QuietCron()
	for i := range n {
		fmt.Fprintf(&b, "  - {name: noop-%04d, task: noop, cron: %q, timezone: UTC}\n", i, cron)
	}
	return b.String()
}

// BenchmarkDispatch makes N occurrences due at once on one replica with 4
// workers × concurrency 8 running /bin/true, and compares, in database
// time from the moment they became due, how fast the Runs were admitted
// (the baseline: the last created_at) with how fast they were started
// (the last Attempt's started_at). ratio = started/s ÷ admitted/s; the
// target is ≥ 0.9 (dispatch keeps up with admission).
func BenchmarkDispatch(b *testing.B) {
	const n = 400
	c := newCluster(b, 10*time.Second)
	c.apply(b, noopDoc(n))
	r := c.startReplica(b, "replica", "", "", "--cadence", "250ms")
	for i := range 4 {
		w := c.newWorker(b, fmt.Sprintf("worker-%d", i), 8)
		c.startWorker(b, w, r.workerURL(), 8)
	}
	var admitted, started []float64
	for b.Loop() {
		before := c.env.Int(b, `SELECT count(*) FROM qinglong.runs`)
		c.awaitSchedulesIdle(b)
		t0 := c.nowMs(b)
		c.env.MakeDue(b, 1)
		eventually(b, 2*time.Minute, "every Run to succeed", func() bool {
			return c.env.Int(b, `SELECT count(*) FROM qinglong.runs WHERE state = 'succeeded'`) == before+n
		})
		var lastCreated, lastStarted int64
		if err := c.env.Super.QueryRow(context.Background(), `SELECT max(r.created_at_ms), max(a.started_at_ms)
			FROM qinglong.runs r JOIN qinglong.attempts a ON a.run_id = r.id WHERE r.created_at_ms >= $1`, t0).Scan(&lastCreated, &lastStarted); err != nil {
			b.Fatal(err)
		}
		// Where a Run's time goes, as averages in database time: queued
		// until granted, granted until started, started until completed.
		var queued, granting, running float64
		if err := c.env.Super.QueryRow(context.Background(), `SELECT avg(a.offered_at_ms - r.created_at_ms), avg(a.started_at_ms - a.offered_at_ms),
			avg(a.finished_at_ms - a.started_at_ms) FROM qinglong.runs r JOIN qinglong.attempts a ON a.run_id = r.id WHERE r.created_at_ms >= $1`, t0).
			Scan(&queued, &granting, &running); err != nil {
			b.Fatal(err)
		}
		b.Logf("average ms: queued %.0f, granted → started %.0f, started → completed %.0f", queued, granting, running)
		admitted = append(admitted, float64(n)/(float64(lastCreated-t0)/1000))
		started = append(started, float64(n)/(float64(lastStarted-t0)/1000))
	}
	a, s := median(admitted), median(started)
	b.ReportMetric(a, "admitted/s")
	b.ReportMetric(s, "started/s")
	b.ReportMetric(s/a, "ratio")
}

// BenchmarkAdmissionToStartLatency fires one Run at a time at an idle
// worker (its long-poll waiting) and measures from the Run's created_at
// (admission, database clock) to the moment its command ran (the command
// records its own wall clock; PostgreSQL runs on the same machine), over
// at least 50 samples. Target: p99 ≤ 250 ms. The baseline, in the same
// run, is the same command spawned directly by the test process (from just
// before the fork to the time it records): what no dispatch can save.
func BenchmarkAdmissionToStartLatency(b *testing.B) {
	const samples = 50
	c := newCluster(b, 10*time.Second)
	c.apply(b, project("latency", c.out(), map[string]string{"stamp": `script: echo "$QL_RUN_ID $(date +%s%3N)" >> "$OUT/starts"
timeout: 1m`}))
	r := c.startReplica(b, "replica", "", "", "--cadence", "250ms")
	w := c.newWorker(b, "worker", 4)
	c.startWorker(b, w, r.workerURL(), 4)
	var latencies []float64
	for b.Loop() {
		for range samples {
			run := c.fire(b, "stamp")
			c.awaitRun(b, run, 20*time.Second, "succeeded")
			// Idle again: the worker's next pull is waiting before the next
			// admission.
			time.Sleep(100 * time.Millisecond)
		}
	}
	created := map[string]int64{}
	rows, err := c.env.Super.Query(context.Background(), `SELECT id::text, created_at_ms FROM qinglong.runs`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var id string
		var ms int64
		if err := rows.Scan(&id, &ms); err != nil {
			b.Fatal(err)
		}
		created[id] = ms
	}
	rows.Close()
	data, err := os.ReadFile(filepath.Join(c.out(), "starts"))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		id, ms, _ := strings.Cut(line, " ")
		startMs, err := strconv.ParseInt(ms, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		latencies = append(latencies, float64(startMs-created[id]))
	}
	if len(latencies) < samples {
		b.Fatalf("%d samples", len(latencies))
	}
	var spawn []float64
	for range samples {
		before := time.Now().UnixMilli()
		out, err := exec.Command("/bin/sh", "-c", "date +%s%3N").Output()
		if err != nil {
			b.Fatal(err)
		}
		ms, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		spawn = append(spawn, float64(ms-before))
	}
	slices.Sort(latencies)
	slices.Sort(spawn)
	b.ReportMetric(percentile(latencies, 0.50), "p50-ms")
	b.ReportMetric(percentile(latencies, 0.99), "p99-ms")
	b.ReportMetric(percentile(spawn, 0.50), "spawn-p50-ms")
	b.ReportMetric(percentile(spawn, 0.99), "spawn-p99-ms")
	b.ReportMetric(float64(len(latencies)), "samples")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return percentile(s, 0.5)
}

// percentile of sorted values (nearest rank).
func percentile(sorted []float64, p float64) float64 {
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// BenchmarkLiveLogLatency measures how long a line a command prints takes
// to reach its readers: a command prints its own clock (`date +%s%3N`) 40
// times, 0.4 s apart (each line after a quiet spell, at every phase of a
// 250 ms flush cadence), on a real worker and replica. "stored" is the
// log chunk's created_at (database time; PostgreSQL is on the same
// machine, so the clocks agree) less the printed time: what the API and
// the console show from then on. "follow" is when `ql runs logs -f` on
// the database wrote the line less the printed time: the stored latency
// plus the follower's polling (at most 1 s while the log is quiet). Run it
// once:
//
//	go test -run '^$' -bench LiveLogLatency -benchtime 1x ./internal/testkit/execution/
func BenchmarkLiveLogLatency(b *testing.B) { liveLogLatency(b, false) }

// BenchmarkLiveLogLatencyWithASecret is BenchmarkLiveLogLatency with a
// secret in the command's environment, so its output passes the worker's
// masking: a line is held only while it could still be the start of the
// secret, never until the command prints again. Run it once:
//
//	go test -run '^$' -bench LiveLogLatencyWithASecret -benchtime 1x ./internal/testkit/execution/
func BenchmarkLiveLogLatencyWithASecret(b *testing.B) { liveLogLatency(b, true) }

// liveLogLatency runs the live log benchmark, with the secret api-token in
// the command's environment (and the worker's secrets file) when secret.
func liveLogLatency(b *testing.B, secret bool) {
	const lines = 40
	c := newCluster(b, 30*time.Second)
	env, workerArgs := "", []string(nil)
	if secret {
		secrets := filepath.Join(c.dir, "secrets.json")
		if err := os.WriteFile(secrets, []byte(`{"api-token": "v3ry-s3cret-value"}`), 0o600); err != nil {
			b.Fatal(err)
		}
		env, workerArgs = "  API_TOKEN: {secret: api-token}\n", []string{"--secrets-file", secrets}
	}
	c.apply(b, project("chatter", c.out(), map[string]string{"chatter": env + fmt.Sprintf(`script: |
  i=0
  while [ $i -lt %d ]; do date +%%s%%3N; sleep 0.4; i=$((i + 1)); done
timeout: 5m`, lines)}))
	r := c.startReplica(b, "replica", "", "")
	c.startWorker(b, c.newWorker(b, "worker", 4), r.workerURL(), 4, workerArgs...)
	var stored, follow []float64
	for b.Loop() {
		run := c.fire(b, "chatter")
		c.awaitRun(b, run, 20*time.Second, "running")
		ctx, cancel := context.WithTimeout(b.Context(), time.Minute)
		cmd := exec.CommandContext(ctx, c.ql, "runs", "logs", "-f", run)
		cmd.Env = append(c.baseEnv(), "QL_DATABASE_URL="+c.env.URL(pgstore.RoleRuntime))
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		scan := bufio.NewScanner(out)
		for scan.Scan() {
			if printed, err := strconv.ParseInt(strings.TrimSpace(scan.Text()), 10, 64); err == nil {
				follow = append(follow, float64(time.Now().UnixMilli()-printed))
			}
		}
		if err := cmd.Wait(); err != nil {
			b.Fatalf("ql runs logs -f: %v", err)
		}
		cancel()
		c.awaitRun(b, run, 20*time.Second, "succeeded")
		rows, err := c.env.Super.Query(context.Background(), `SELECT l.bytes, l.created_at_ms FROM qinglong.run_log_chunks l
			JOIN qinglong.attempts a ON a.id = l.attempt_id WHERE a.run_id = $1 ORDER BY l.log_offset`, run)
		if err != nil {
			b.Fatal(err)
		}
		// A line is stored once the chunk holding its end is: a chunk may
		// end inside a line (the masking held its tail back).
		var open []byte
		for rows.Next() {
			var data []byte
			var at int64
			if err := rows.Scan(&data, &at); err != nil {
				b.Fatal(err)
			}
			open = append(open, data...)
			for {
				line, rest, ok := bytes.Cut(open, []byte("\n"))
				if !ok {
					break
				}
				if printed, err := strconv.ParseInt(string(line), 10, 64); err == nil {
					stored = append(stored, float64(at-printed))
				}
				open = rest
			}
		}
		rows.Close()
	}
	if len(stored) < lines || len(follow) < lines {
		b.Fatalf("%d stored and %d followed lines, want %d each", len(stored), len(follow), lines)
	}
	slices.Sort(stored)
	slices.Sort(follow)
	for _, m := range []struct {
		name string
		v    []float64
	}{{"stored", stored}, {"follow", follow}} {
		b.ReportMetric(percentile(m.v, 0.50), m.name+"-p50-ms")
		b.ReportMetric(percentile(m.v, 0.99), m.name+"-p99-ms")
		b.ReportMetric(m.v[len(m.v)-1], m.name+"-max-ms")
	}
}
