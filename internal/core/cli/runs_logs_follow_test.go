package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// A follower that gives up after an outage tells the user to run the
// command again as they gave it: over --api-url, with the server's
// address (and --attempt N when given), on a database with --data-dir,
// which `ql runs logs ID -f` alone would not reach.
func TestAFollowerThatGivesUpSaysTheCommandAsGiven(t *testing.T) {
	t.Parallel()
	const id = "0193a8a0-0000-7000-8000-00000000abcd"
	for _, c := range []struct {
		args []string
		from string
		want string
	}{
		{[]string{id, "-f", "--api-url", "https://ql.example:8080", "--attempt", "2"}, "the server",
			"run `ql runs logs " + id + " -f --attempt 2 --api-url https://ql.example:8080` again"},
		{[]string{id, "-f", "--api-url", "http://[::1]:8080/a b"}, "the server",
			"run `ql runs logs " + id + " -f --api-url 'http://[::1]:8080/a b'` again"},
		{[]string{id, "-f", "--data-dir", "/srv/my ql"}, "the database",
			"run `ql runs logs " + id + " -f --data-dir '/srv/my ql'` again"},
		{[]string{id, "-f"}, "the database", "run `ql runs logs " + id + " -f` again"},
	} {
		cmd, _, err := NewRoot(Options{Binary: "ql"}).Find([]string{"runs", "logs"})
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.ParseFlags(c.args); err != nil {
			t.Fatal(err)
		}
		l := logFollower{from: c.from, again: followAgain(cmd, id), runID: id, out: io.Discard, errOut: io.Discard,
			downSince: time.Now().Add(-followOutageLimit - time.Second)}
		err = l.outage(t.Context(), qlerror.New(qlerror.Unavailable, "connection refused"))
		if !qlerror.Is(err, qlerror.Unavailable) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: giving up: %v; want %q", c.args, err, c.want)
		}
	}
}

// stalledRun is a database holding one succeeded Run with one attempt,
// whose first reads of the Run, and of its log, wait until their caller
// gives up, as a database with every connection taken, or a disk that
// hangs, makes its callers wait.
type stalledRun struct {
	run.Reader
	stalls atomic.Int64
}

func (s *stalledRun) RunGet(ctx context.Context, id string) (run.Detail, error) {
	if s.stalls.Add(-1) >= 0 {
		<-ctx.Done()
		return run.Detail{}, ctx.Err()
	}
	started := int64(1)
	return run.Detail{Run: run.Run{ID: id, State: run.Succeeded},
		Attempts: []run.Attempt{{ID: "a1", RunID: id, Number: 1, State: run.AttemptSucceeded, StartedAtMs: &started}}}, nil
}

// Every read `runs logs` makes of the database has a time limit, the
// first ones too: without -f, a database that does not answer in time is
// said, with the limit; with -f it is said once and waited for as any
// outage, the output then printed from where it stood, once.
func TestEveryReadOfRunsLogsOnTheDatabaseHasATimeLimit(t *testing.T) {
	t.Parallel()
	const limit = 100 * time.Millisecond
	const id = "0193a8a0-0000-7000-8000-00000000abcd"
	logStalls := atomic.Int64{}
	b := &Backend{ReadLog: func(ctx context.Context, _ string, offset, _ int64, w io.Writer) (int64, bool, error) {
		if logStalls.Add(-1) >= 0 {
			<-ctx.Done()
			return offset, false, ctx.Err()
		}
		if offset > 0 {
			return offset, false, nil
		}
		n, err := io.WriteString(w, "hello\n")
		return int64(n), false, err
	}}
	follower := func(stalls int64, out, errOut io.Writer) *logFollower {
		runs := &stalledRun{}
		runs.stalls.Store(stalls)
		b.Runs = runs
		src, from, lim, err := logSourceOf(b, limit)
		if err != nil {
			t.Fatal(err)
		}
		return &logFollower{runs: runs, log: src, from: from, limit: lim, again: "ql runs logs " + id + " -f", runID: id, out: out, errOut: errOut}
	}

	start := time.Now()
	err := follower(1, io.Discard, io.Discard).once(t.Context())
	if took := time.Since(start); !qlerror.Is(err, qlerror.Unavailable) || !strings.Contains(err.Error(), "the database did not answer within 100ms") || took > 5*time.Second {
		t.Fatalf("runs logs on a database that does not answer: %v after %s; want it said after the 100ms limit", err, took)
	}
	logStalls.Store(1)
	start = time.Now()
	if err := follower(0, io.Discard, io.Discard).once(t.Context()); !strings.Contains(fmt.Sprint(err), "the database did not answer within 100ms") || time.Since(start) > 5*time.Second {
		t.Fatalf("runs logs whose log is not read in time: %v; want it said", err)
	}

	for _, stall := range []string{"run", "log"} {
		var out, errOut bytes.Buffer
		runStalls := int64(0)
		if stall == "run" {
			runStalls = 1
		} else {
			logStalls.Store(1)
		}
		if err := follower(runStalls, &out, &errOut).follow(t.Context()); err != nil || out.String() != "hello\n" ||
			!strings.Contains(errOut.String(), "(the database did not answer within 100ms") || !strings.Contains(errOut.String(), "waiting up to 5m") ||
			!strings.Contains(errOut.String(), "(the database answers again; following on)") {
			t.Errorf("runs logs -f whose first read of the %s stalls: %v, printed %q, said %q; want the stall said, waited out, the output once", stall, err, out.String(), errOut.String())
		}
	}
}

// scriptedRun is a database whose Run changes at each read: the reads
// return its states in turn, then the last one for good.
type scriptedRun struct {
	run.Reader
	states []run.Detail
	reads  atomic.Int64
}

func (s *scriptedRun) RunGet(context.Context, string) (run.Detail, error) {
	i := min(int(s.reads.Add(1))-1, len(s.states)-1)
	return s.states[i], nil
}

// A follower says what happened to the Run between two attempts as it
// happens: how the attempt it followed ended (its exit code, its error
// code and message), until when the next one waits out the retry backoff,
// that it started only once it did (not when the retry created it), and
// how the last attempt of a Run that did not succeed ended.
func TestAFollowerSaysHowEachAttemptEndedAndWhenTheNextOneStarts(t *testing.T) {
	t.Parallel()
	const id = "0193a8a0-0000-7000-8000-00000000abcd"
	started, three := int64(1), int64(3)
	running1 := run.Attempt{ID: "a1", Number: 1, State: run.AttemptRunning, StartedAtMs: &started}
	failed1 := run.Attempt{ID: "a1", Number: 1, State: run.AttemptFailed, StartedAtMs: &started, ExitCode: &three, ErrorCode: "exit_nonzero"}
	waiting2 := run.Attempt{ID: "a2", Number: 2, State: run.AttemptClaimed}
	running2 := run.Attempt{ID: "a2", Number: 2, State: run.AttemptRunning, StartedAtMs: &started}
	lost2 := run.Attempt{ID: "a2", Number: 2, State: run.AttemptLost, StartedAtMs: &started, ErrorCode: "lease_expired",
		ErrorMessage: "the worker stopped renewing the lease (crashed, stopped or cut off)"}
	retry := []run.Event{{Seq: 5, Name: run.EventRetryWait, CreatedAtMs: 1796335836056,
		Payload: `{"attempt": 1, "outcome": "failed", "exitCode": 3, "nextAttempt": 2, "nextAttemptId": "a2", "availableAtMs": 1796335838056}`}}
	detail := func(state run.State, attempts ...run.Attempt) run.Detail {
		d := run.Detail{Run: run.Run{ID: id, State: state}, Attempts: attempts}
		if len(attempts) > 1 {
			d.Events = retry
		}
		return d
	}
	runs := &scriptedRun{states: []run.Detail{
		detail(run.Running, running1),
		detail(run.RetryWait, failed1, waiting2),
		detail(run.RetryWait, failed1, waiting2),
		detail(run.Queued, failed1, waiting2),
		detail(run.Running, failed1, running2),
		detail(run.Lost, failed1, lost2),
	}}
	logs := map[string]string{"a1": "first try\n", "a2": "second try\n"}
	src := func(_ context.Context, at attemptRef, offset int64, w io.Writer) (int64, bool, error) {
		text := logs[at.id]
		n, err := io.WriteString(w, text[offset:])
		return offset + int64(n), false, err
	}
	var out, errOut bytes.Buffer
	l := &logFollower{runs: runs, log: src, from: "the database", runID: id, out: &out, errOut: &errOut}
	if err := l.follow(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := "(attempt 1 ended: failed, exit code 3 (exit_nonzero); attempt 2 waits out the retry backoff until 2026-12-03T22:10:38.056Z)\n" +
		"(attempt 2 started: a2)\n" +
		"(run " + id + " ended: lost; attempt 2: lost (lease_expired: the worker stopped renewing the lease (crashed, stopped or cut off)))\n"
	if out.String() != "first try\nsecond try\n" || errOut.String() != want {
		t.Fatalf("followed a retried Run: printed %q, said %q; want both attempts' output and said %q", out.String(), errOut.String(), want)
	}

	// An attempt that starts and ends between two reads of the Run is
	// still said to have started, before how it ended.
	failed2 := run.Attempt{ID: "a2", Number: 2, State: run.AttemptFailed, StartedAtMs: &started, ExitCode: &three, ErrorCode: "exit_nonzero"}
	failed3 := run.Attempt{ID: "a3", Number: 3, State: run.AttemptFailed, StartedAtMs: &started, ExitCode: &three, ErrorCode: "exit_nonzero"}
	runs = &scriptedRun{states: []run.Detail{
		detail(run.Running, running1),
		detail(run.RetryWait, failed1, waiting2),
		{Run: run.Run{ID: id, State: run.RetryWait}, Attempts: []run.Attempt{failed1, failed2, {ID: "a3", Number: 3, State: run.AttemptClaimed}}, Events: retry},
		{Run: run.Run{ID: id, State: run.Failed}, Attempts: []run.Attempt{failed1, failed2, failed3}, Events: retry},
	}}
	errOut.Reset()
	l = &logFollower{runs: runs, log: src, from: "the database", runID: id, out: io.Discard, errOut: &errOut}
	if err := l.follow(t.Context()); err != nil {
		t.Fatal(err)
	}
	want = "(attempt 1 ended: failed, exit code 3 (exit_nonzero); attempt 2 waits out the retry backoff until 2026-12-03T22:10:38.056Z)\n" +
		"(attempt 2 started: a2)\n(attempt 2 ended: failed, exit code 3 (exit_nonzero))\n(attempt 3 started: a3)\n" +
		"(run " + id + " ended: failed; attempt 3: failed, exit code 3 (exit_nonzero))\n"
	if errOut.String() != want {
		t.Fatalf("followed a Run whose attempt started and ended between two reads: said %q; want %q", errOut.String(), want)
	}
}

// The follower's note of why a Run waits says "waits" once for every
// reason: a busy worker's reads "(run ID waits for a free slot …)", not
// "(run ID waits: it waits for a free slot …)".
func TestTheFollowersWaitingNoteSaysWaitsOnceForEveryReason(t *testing.T) {
	t.Parallel()
	for _, w := range []run.Waiting{
		{Reason: run.WaitNoWorker},
		{Reason: run.WaitWorkersDraining, Workers: 2},
		{Reason: run.WaitNoMatchingWorker, Labels: map[string]string{"gpu": "a100"}, Workers: 1},
		{Reason: run.WaitWorkersBusy, Workers: 1},
		{Reason: run.WaitPrevious, PreviousRun: "01JPREVIOUS"},
		{Reason: run.WaitServerBusy, Running: 2, Concurrency: 2},
		{Reason: run.WaitServerStarting, Running: 1, Concurrency: 3},
		{Reason: run.WaitNoServer, DataDir: "/var/lib/qinglong"},
		{Reason: run.WaitProjectBusy, Project: "delta", Running: 2, MaxRunning: 2},
	} {
		var errOut bytes.Buffer
		l := &logFollower{runID: "01JRUN", out: io.Discard, errOut: &errOut}
		l.noteWaiting(&w)
		said := errOut.String()
		if !strings.HasPrefix(said, "(run 01JRUN waits") || strings.Count(said, "waits") != 1+strings.Count(strings.TrimPrefix(w.Message(), "it waits"), "waits") {
			t.Errorf("%s: the follower said %q; want waits said once before the reason", w.Reason, said)
		}
	}
}
