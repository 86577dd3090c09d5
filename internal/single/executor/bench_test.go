package executor

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

// BenchmarkLocalLiveLogLatency measures how long a line a command prints
// takes to reach its attempt's log file on a single node, where the API,
// `ql runs logs -f` and the console read it: a real command prints its own
// clock (`date +%s%3N`) 40 times, 0.4 s apart, each line after a quiet
// spell. "logged" is when the benchmark, reading the file every 2 ms, found
// the line's end, less the printed time. Run it once:
//
//	go test -run '^$' -bench LocalLiveLogLatency -benchtime 1x ./internal/single/executor/
func BenchmarkLocalLiveLogLatency(b *testing.B) { localLiveLogLatency(b, false) }

// BenchmarkLocalLiveLogLatencyWithASecret is BenchmarkLocalLiveLogLatency
// with a secret in the command's environment, so its output passes the
// masking: a line is held only while it could still be the start of the
// secret, never until the command prints again.
func BenchmarkLocalLiveLogLatencyWithASecret(b *testing.B) { localLiveLogLatency(b, true) }

func localLiveLogLatency(b *testing.B, secret bool) {
	const lines = 40
	h := newHarness(b)
	c := shell(fmt.Sprintf(`i=0; while [ $i -lt %d ]; do date +%%s%%3N; sleep 0.4; i=$((i + 1)); done`, lines), 5*time.Minute)
	if secret {
		writeSecrets(b, h.dir, 0o600)
		c.Env = []task.EnvVar{{Name: "TOKEN", SecretRef: "api-token"}}
	}
	d, sig := h.dispatcher(b, dispatcherOpts{})
	var logged []float64
	runs := 0
	for b.Loop() {
		runs++
		runID := h.admit(b, c)
		d.Wake()
		waitState(b, h, runID, run.Running)
		logPath := h.detail(b, runID).Attempts[0].LogPath
		var read int
		var open []byte
		finished := false
		for !finished {
			select {
			case <-sig.finished:
				finished = true
			case <-time.After(2 * time.Millisecond):
			}
			data, err := os.ReadFile(logPath)
			if err != nil {
				b.Fatal(err)
			}
			now := time.Now().UnixMilli()
			open = append(open, data[read:]...)
			read = len(data)
			for {
				line, rest, ok := bytes.Cut(open, []byte("\n"))
				if !ok {
					break
				}
				if printed, err := strconv.ParseInt(string(line), 10, 64); err == nil {
					logged = append(logged, float64(now-printed))
				}
				open = rest
			}
		}
	}
	if len(logged) != lines*runs {
		b.Fatalf("%d lines found in the log, want %d", len(logged), lines*runs)
	}
	slices.Sort(logged)
	b.ReportMetric(percentile(logged, 0.50), "logged-p50-ms")
	b.ReportMetric(percentile(logged, 0.99), "logged-p99-ms")
	b.ReportMetric(logged[len(logged)-1], "logged-max-ms")
}

// percentile is the p-th value of sorted (nearest rank).
func percentile(sorted []float64, p float64) float64 {
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
