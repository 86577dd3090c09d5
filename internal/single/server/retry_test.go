package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// admitRetrying publishes a task running script under policy, with a
// trigger that does not fall due within a test, into dataDir's database,
// and admits one Run of it (run now), returning the Run's id.
func admitRetrying(t *testing.T, dataDir, script string, policy task.RetryPolicy) string {
	t.Helper()
	b, err := OpenBackend(t.Context(), LayoutOf(dataDir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := project.Project{ID: ids.New(), Name: "retry", Status: project.Active}
	if _, err := b.Store.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	tk, _, err := b.Catalog.PublishTask(t.Context(), p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "job", Enabled: true,
		Command: task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: script, TimeoutMs: time.Hour.Milliseconds(), Retry: policy}})
	if err != nil {
		t.Fatal(err)
	}
	tg, _, err := b.Catalog.PublishTrigger(t.Context(), p.ID, ids.New(), tk, 0, ids.New(),
		trigger.Spec{Name: "quiet", Enabled: true, Cron: storetest.QuietCron(time.Now().UnixMilli())})
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: tg.TriggerID, RequestID: ids.New(), Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return res.RunID
}

// restartUntilFinished starts a server on cfg again, waits until the Run
// runID has finished, stops the server and returns the Run.
func restartUntilFinished(t *testing.T, cfg Config, runID string) run.Detail {
	t.Helper()
	srv, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background()) //nolint:errcheck // stopped below; a failed test only needs it gone
	db := observer(t, cfg.DataDir)
	waitFor(t, "the Run to finish", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE id = ? AND finished_at_ms IS NOT NULL`, runID) == 1
	})
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	return readRun(t, cfg.DataDir, runID)
}

// readRun reads a Run through the store, as `ql runs show` does.
func readRun(t *testing.T, dataDir, runID string) run.Detail {
	t.Helper()
	b, err := OpenBackend(t.Context(), LayoutOf(dataDir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	d, err := b.Store.RunGet(t.Context(), runID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A command that fails twice and then succeeds, under retry {maxAttempts:
// 3, backoff: 1s, on: [failed]}, runs three times on a standalone server:
// each next attempt starts when the backoff after the previous one's end
// has passed — not at the dispatcher's cadence, a minute here — and the
// third's success finishes the Run. Each retried attempt keeps its own end,
// and the server says it waits to retry rather than that the Run finished.
func TestARetriedCommandRunsAgainAfterItsBackoffUntilItSucceeds(t *testing.T) {
	t.Parallel()
	dataDir := installedDir(t)
	counter := filepath.Join(t.TempDir(), "runs")
	script := fmt.Sprintf(`n=$(cat %[1]s 2>/dev/null || echo 0); n=$((n+1)); echo $n > %[1]s; echo "attempt $n"; [ "$n" -ge 3 ]`, counter)
	runID := admitRetrying(t, dataDir, script, task.RetryPolicy{MaxAttempts: 3, BackoffMs: 1000, On: []string{task.RetryOnFailed}})
	logs := &lockedBuffer{}
	const cadence = time.Minute
	srv, err := Start(t.Context(), Config{DataDir: dataDir, MetricsAddr: "127.0.0.1:0", Cadence: cadence, StopTimeout: 4 * time.Second, Concurrency: 1,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background()) //nolint:errcheck // stopped below; a failed test only needs it gone
	db := observer(t, dataDir)
	waitFor(t, "the Run to finish", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE id = ? AND finished_at_ms IS NOT NULL`, runID) == 1
	})
	// The finish is counted once its result is recorded, just after the
	// commit the wait saw.
	waitFor(t, "the Run counted finished", 10*time.Second, func() bool {
		return metricstest.Scrape(t, "http://"+srv.MetricsAddr()+"/metrics").Value(t, "qinglong_runs_finished_total", "outcome", "succeeded") == 1
	})
	m := metricstest.Scrape(t, "http://"+srv.MetricsAddr()+"/metrics")
	if retried, failed := m.Value(t, "qinglong_attempts_retried_total"), m.Value(t, "qinglong_runs_finished_total", "outcome", "failed"); retried != 2 || failed != 0 {
		t.Fatalf("metrics: %g attempts retried, %g Runs finished failed; want 2 and 0: a retried attempt does not finish its Run", retried, failed)
	}
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := readRun(t, dataDir, runID)
	if d.Run.State != run.Succeeded || len(d.Attempts) != 3 {
		t.Fatalf("the Run is %s with %d attempts, want succeeded with 3", d.Run.State, len(d.Attempts))
	}
	for i, a := range d.Attempts {
		want := run.AttemptFailed
		if i == 2 {
			want = run.AttemptSucceeded
		}
		if a.Number != int64(i+1) || a.State != want || a.StartedAtMs == nil || a.FinishedAtMs == nil {
			t.Fatalf("attempt %d: number %d, %s; want %s, started and ended", i+1, a.Number, a.State, want)
		}
		if i == 0 {
			continue
		}
		// The backoff counts from the previous end; the start comes when
		// it ends. A retry left to the dispatcher's next round would start
		// up to its minute later: half of it tells the two apart however
		// slow the machine.
		gap := time.Duration(*a.StartedAtMs-*d.Attempts[i-1].FinishedAtMs) * time.Millisecond
		if gap < time.Second || gap >= cadence/2 {
			t.Fatalf("attempt %d started %s after attempt %d ended, want its 1s backoff and not the %s cadence", i+1, gap, i, cadence)
		}
	}
	var waits int
	for _, e := range d.Events {
		if e.Name != run.EventRetryWait {
			continue
		}
		waits++
		var p struct {
			Attempt, NextAttempt int
			AvailableAtMs        int64
		}
		if err := json.Unmarshal([]byte(e.Payload), &p); err != nil || p.Attempt != waits || p.NextAttempt != waits+1 || p.AvailableAtMs != e.CreatedAtMs+1000 {
			t.Fatalf("run.retry_wait %s (%v); want attempt %d followed by %d a backoff after the event", e.Payload, err, waits, waits+1)
		}
	}
	if waits != 2 {
		t.Fatalf("%d run.retry_wait events, want 2", waits)
	}
	l := logs.String()
	if strings.Count(l, "code="+CodeRunRetryWait) != 2 || strings.Count(l, "code="+CodeRunFinished) != 1 {
		t.Fatalf("the server logged %d waits to retry and %d finishes, want 2 and 1:\n%s", strings.Count(l, "code="+CodeRunRetryWait), strings.Count(l, "code="+CodeRunFinished), l)
	}
}

// A command running when its server crashed is lost; under retry on
// [lost] (the default outcome) the restarted server runs it again after
// the backoff, and its success finishes the Run. A Run waiting out its
// backoff across a restart keeps its time: the wait is stored, not held
// in memory.
func TestACommandLostToACrashIsRetriedByTheRestartedServer(t *testing.T) {
	t.Parallel()
	dataDir := installedDir(t)
	marker := filepath.Join(t.TempDir(), "first")
	// The first attempt leaves its mark and hangs until the crash; the
	// second finds the mark and succeeds.
	script := fmt.Sprintf(`if [ -e %[1]s ]; then echo again; exit 0; fi; touch %[1]s; exec sleep 300`, marker)
	runID := admitRetrying(t, dataDir, script, task.RetryPolicy{MaxAttempts: 2, BackoffMs: 1000, On: []string{task.RetryOnLost}})
	h := startHelper(t, dataDir, 1)
	db := observer(t, dataDir)
	waitFor(t, "the first attempt to run", time.Minute, func() bool {
		return count(t, db, `SELECT count(*) FROM attempts WHERE run_id = ? AND state = 'running'`, runID) == 1
	})
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = h.cmd.Wait()
	if d := readRun(t, dataDir, runID); d.Run.State != run.Running {
		t.Fatalf("after the crash the Run is %s, want running (nothing recorded its end)", d.Run.State)
	}
	logs := &lockedBuffer{}
	srv, err := Start(t.Context(), Config{DataDir: dataDir, Cadence: time.Minute, StopTimeout: 4 * time.Second, Concurrency: 1,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background()) //nolint:errcheck // stopped below; a failed test only needs it gone
	if l := logs.String(); !strings.Contains(l, "code="+CodeAttemptsLost) || !strings.Contains(l, "retried=1") {
		t.Fatalf("the restart logged no lost attempt given a retry:\n%s", l)
	}
	waitFor(t, "the Run to finish", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE id = ? AND finished_at_ms IS NOT NULL`, runID) == 1
	})
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := readRun(t, dataDir, runID)
	if d.Run.State != run.Succeeded || len(d.Attempts) != 2 || d.Attempts[0].State != run.AttemptLost || d.Attempts[1].State != run.AttemptSucceeded {
		t.Fatalf("the Run is %s with attempts %+v, want succeeded after a lost attempt", d.Run.State, d.Attempts)
	}
	if gap := time.Duration(*d.Attempts[1].StartedAtMs-*d.Attempts[0].FinishedAtMs) * time.Millisecond; gap < time.Second {
		t.Fatalf("attempt 2 started %s after attempt 1 was found lost, want its 1s backoff", gap)
	}
}

// A server stopped while a Run waits out its backoff leaves it waiting:
// the next server runs the retry at the stored time, not at once and not
// never.
func TestARunWaitingToRetryAcrossARestartIsRetriedAtItsTime(t *testing.T) {
	t.Parallel()
	dataDir := installedDir(t)
	counter := filepath.Join(t.TempDir(), "runs")
	script := fmt.Sprintf(`n=$(cat %[1]s 2>/dev/null || echo 0); n=$((n+1)); echo $n > %[1]s; [ "$n" -ge 2 ]`, counter)
	const backoff = 3 * time.Second
	runID := admitRetrying(t, dataDir, script, task.RetryPolicy{MaxAttempts: 2, BackoffMs: backoff.Milliseconds(), On: []string{task.RetryOnFailed}})
	cfg := Config{DataDir: dataDir, Cadence: time.Minute, StopTimeout: 4 * time.Second, Concurrency: 1, Logger: slog.New(slog.NewTextHandler(&lockedBuffer{}, nil))}
	srv, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := observer(t, dataDir)
	waitFor(t, "the Run to wait to retry", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE id = ? AND state = 'retry_wait'`, runID) == 1
	})
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := restartUntilFinished(t, cfg, runID)
	if d.Run.State != run.Succeeded || len(d.Attempts) != 2 {
		t.Fatalf("the Run is %s with %d attempts, want succeeded with 2", d.Run.State, len(d.Attempts))
	}
	// Not at once, and not left to the next server's round after its
	// first, a minute (its cadence) after it started: half of that tells
	// the two apart however slow the machine.
	gap := time.Duration(*d.Attempts[1].StartedAtMs-*d.Attempts[0].FinishedAtMs) * time.Millisecond
	if gap < backoff || gap >= cfg.Cadence/2 {
		t.Fatalf("attempt 2 started %s after attempt 1 ended, want its %s backoff across the restart, not the %s cadence", gap, backoff, cfg.Cadence)
	}
}

// A command its server stopped is lost (server_stopped), and under retry
// on [lost] its Run waits to retry rather than ending lost: the next start
// runs it again.
func TestACommandStoppedWithItsServerIsRetriedByTheNextStart(t *testing.T) {
	t.Parallel()
	dataDir := installedDir(t)
	marker := filepath.Join(t.TempDir(), "first")
	script := fmt.Sprintf(`if [ -e %[1]s ]; then echo again; exit 0; fi; touch %[1]s; exec sleep 300`, marker)
	runID := admitRetrying(t, dataDir, script, task.RetryPolicy{MaxAttempts: 2, On: []string{task.RetryOnLost}})
	cfg := Config{DataDir: dataDir, Cadence: time.Minute, StopTimeout: 2 * time.Second, Concurrency: 1, Logger: slog.New(slog.NewTextHandler(&lockedBuffer{}, nil))}
	srv, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := observer(t, dataDir)
	waitFor(t, "the first attempt to run", time.Minute, func() bool {
		return count(t, db, `SELECT count(*) FROM attempts WHERE run_id = ? AND state = 'running'`, runID) == 1
	})
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A clean stop recorded the end, or kept it in a file when the store
	// took longer than the stop timeout (a loaded machine): the next start
	// records a kept one before anything else, so both give the retry.
	d := readRun(t, dataDir, runID)
	kept, err := filepath.Glob(filepath.Join(LayoutOf(dataDir).Owners, "*."+d.Attempts[0].ID+".result"))
	if err != nil {
		t.Fatal(err)
	}
	recorded := d.Run.State == run.RetryWait && len(d.Attempts) == 2 && d.Attempts[0].State == run.AttemptLost &&
		d.Attempts[0].ErrorCode == "server_stopped" && d.Attempts[1].State == run.AttemptClaimed
	if !recorded && (len(kept) != 1 || len(d.Attempts) != 1) {
		t.Fatalf("after the stop the Run is %s with attempts %+v and kept results %v; want retry_wait, attempt 1 lost (server_stopped) and attempt 2 claimed, or attempt 1's end kept in a file", d.Run.State, d.Attempts, kept)
	}
	d = restartUntilFinished(t, cfg, runID)
	if d.Run.State != run.Succeeded || len(d.Attempts) != 2 || d.Attempts[0].State != run.AttemptLost || d.Attempts[0].ErrorCode != "server_stopped" ||
		d.Attempts[1].State != run.AttemptSucceeded {
		t.Fatalf("the Run is %s with attempts %+v, want attempt 1 lost (server_stopped) and succeeded by attempt 2", d.Run.State, d.Attempts)
	}
}

// A Run waiting to retry reads as such everywhere on a standalone server:
// the console's Run page says it waits to retry and lists both attempts,
// the API's Run has both, the failed one with its exit code; and the
// console's cancel ends it at once, its next attempt never started.
func TestARunWaitingToRetryShowsEveryAttemptAndIsCancelledAtOnce(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteCommand(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: "exit 3", TimeoutMs: time.Hour.Milliseconds(),
			Retry: task.RetryPolicy{MaxAttempts: 2, BackoffMs: time.Hour.Milliseconds(), On: []string{task.RetryOnFailed}}}, func(*Config) {})
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	id := site.runNow(t, c, csrf)
	var page string
	waitFor(t, "the Run to wait to retry", 15*time.Second, func() bool {
		_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"?lang=en", nil)
		return strings.Contains(page, `data-state="retry_wait"`)
	})
	if !strings.Contains(page, "waiting to retry") || !strings.Contains(page, `?attempt=1#log`) || !strings.Contains(page, `?attempt=2#log`) ||
		!strings.Contains(page, run.EventRetryWait) || !strings.Contains(page, `id="cancel"`) {
		t.Fatalf("the Run page does not show a Run waiting to retry with both attempts and a cancel:\n%s", page)
	}
	status, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/runs/"+id, site.tokens[apitoken.Read], nil)
	var got struct {
		Run      struct{ State string }
		Attempts []struct {
			Number   int64
			State    string
			ExitCode *int64
		}
	}
	if err := json.Unmarshal(body, &got); err != nil || status != http.StatusOK {
		t.Fatalf("GET the Run: %d %s (%v)", status, body, err)
	}
	if got.Run.State != "retry_wait" || len(got.Attempts) != 2 || got.Attempts[0].State != "failed" || got.Attempts[0].ExitCode == nil ||
		*got.Attempts[0].ExitCode != 3 || got.Attempts[1].Number != 2 || got.Attempts[1].State != "claimed" {
		t.Fatalf("the API's Run: %s; want retry_wait with attempt 1 failed (exit 3) and attempt 2 claimed", body)
	}
	site.cancel(t, c, csrf, id)
	d := readRun(t, site.dir, id)
	if d.Run.State != run.Cancelled || len(d.Attempts) != 2 || d.Attempts[1].State != run.AttemptCancelled || d.Attempts[1].StartedAtMs != nil {
		t.Fatalf("after the cancel the Run is %s with attempts %+v; want cancelled, attempt 2 cancelled unstarted", d.Run.State, d.Attempts)
	}
}
