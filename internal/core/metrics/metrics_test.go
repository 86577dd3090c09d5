package metrics

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// gather is the registry's metrics by family name.
func gather(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// value is the counter or gauge of family name whose labels are exactly
// labels (name, value, ...); -1 when there is none.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	for _, m := range fams[name].GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		match := len(got) == len(labels)/2
		for i := 0; match && i+1 < len(labels); i += 2 {
			match = got[labels[i]] == labels[i+1]
		}
		if match {
			return m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return -1
}

// A round's raced, failed and unavailable tickets are counted under the
// outcome their reason belongs to, a failure no reason names as failed,
// and the committed outcomes without a reason.
func TestARoundIsCountedByOutcomeAndReason(t *testing.T) {
	m := New(Config{Profile: "standalone"})
	m.ObserveRound(schedule.Summary{
		Counts: map[schedule.Outcome]int{schedule.Admitted: 3, schedule.Skipped: 1, schedule.Raced: 2, schedule.Failed: 1, schedule.Unavailable: 2},
		Reasons: map[schedule.Reason]int{schedule.ReasonClaimLost: 2, schedule.ReasonCursorDrift: 1, schedule.ReasonLockNotAvailable: 1,
			schedule.ReasonOutcomeUnknown: 1},
		Passed: map[schedule.PassReason]int64{schedule.PassCollapsed: 7},
		Take:   time.Millisecond, Commit: 2 * time.Millisecond, Groups: 1,
		AdmissionLagMs: []int64{100, 200, 300},
	})
	fams := gather(t, m)
	for _, c := range []struct {
		outcome, reason string
		want            float64
	}{
		{"admitted", "", 3}, {"skipped", "", 1}, {"initialized", "", 0}, {"raced", "claim_lost", 2},
		{"failed", "cursor_drift", 1}, {"unavailable", "lock_not_available", 1}, {"unavailable", "outcome_unknown", 1},
	} {
		if got := value(fams, "qinglong_scheduler_decisions_total", "outcome", c.outcome, "reason", c.reason); got != c.want {
			t.Errorf("decisions{outcome=%q, reason=%q} = %g, want %g", c.outcome, c.reason, got, c.want)
		}
	}
	if got := value(fams, "qinglong_scheduler_occurrences_passed_total", "reason", "collapsed"); got != 7 {
		t.Errorf("passed{collapsed} = %g, want 7", got)
	}
	if got := value(fams, "qinglong_scheduler_occurrences_passed_total", "reason", "misfire"); got != 0 {
		t.Errorf("passed{misfire} = %g, want a series at 0", got)
	}
	h := fams["qinglong_scheduler_admission_lag_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 3 || h.GetSampleSum() < 0.5999 || h.GetSampleSum() > 0.6001 {
		t.Errorf("lag: %d samples summing %g, want 3 summing 0.6", h.GetSampleCount(), h.GetSampleSum())
	}
}

// overlapStore hands out one due ticket and commits its admission as an
// adapter does when the trigger's overlap policy is skip and its previous
// Run has not finished: as a skip with the overlap pass, which it reports.
type overlapStore struct{ tk schedule.Ticket }

func (s overlapStore) ScheduleTake(context.Context, schedule.TakeParams) ([]schedule.Ticket, error) {
	return []schedule.Ticket{s.tk}, nil
}

func (overlapStore) ScheduleCommit(_ context.Context, p schedule.CommitParams) (schedule.CommitResult, error) {
	return schedule.CommitResult{Outcome: schedule.Skipped, Passed: p.Decision.OverlapPassed().Passed}, nil
}

func (s overlapStore) ScheduleCommitPage(ctx context.Context, ps []schedule.CommitParams) ([]schedule.CommitResult, error) {
	out := make([]schedule.CommitResult, len(ps))
	for i, p := range ps {
		out[i], _ = s.ScheduleCommit(ctx, p)
	}
	return out, nil
}

func (overlapStore) Executor() task.Executor { return task.LocalProcess }

// An occurrence the store passed over for overlap inside its commit (the
// round handed it an admission) is counted under overlap, as the ledger
// records it, and its decision as skipped.
func TestAnOverlapPassTheCommitReportsIsCounted(t *testing.T) {
	due := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC).UnixMilli()
	st := overlapStore{tk: schedule.Ticket{
		Snapshot: schedule.Snapshot{
			TriggerID: "t", TriggerCreatedAtMs: due - time.Hour.Milliseconds(), NextFireAtMs: &due,
			Cron: trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce, Overlap: trigger.OverlapSkip},
		},
		ObservedAtMs: due + 5,
	}}
	sum, err := schedule.Round(t.Context(), st, schedule.RoundConfig{PageSize: 1, Parallel: 1, GraceMs: 10_000, NewIDs: ids.Fill})
	if err != nil {
		t.Fatal(err)
	}
	m := New(Config{Profile: "standalone"})
	m.ObserveRound(sum)
	fams := gather(t, m)
	if got := value(fams, "qinglong_scheduler_occurrences_passed_total", "reason", "overlap"); got != 1 {
		t.Errorf("passed{overlap} = %g, want 1", got)
	}
	if got := value(fams, "qinglong_scheduler_decisions_total", "outcome", "skipped", "reason", ""); got != 1 {
		t.Errorf("decisions{outcome=skipped} = %g, want 1", got)
	}
}

// The store is read at most once per CacheFor however often it is scraped;
// a failed read is counted and leaves the store-read gauges out rather than
// repeating old values.
func TestTheStoreIsReadAtMostOncePerCachePeriod(t *testing.T) {
	reads := 0
	m := New(Config{
		Profile:  "standalone",
		CacheFor: time.Hour,
		Monitor: func(context.Context, int) (schedule.MonitorSnapshot, error) {
			reads++
			return schedule.MonitorSnapshot{NowMs: 10_000, Due: 4, OldestDueAtMs: new(int64(7_500)), Runs: map[run.State]int{run.Queued: 5}}, nil
		},
		Readiness: func() string { return StateReady },
	})
	for range 3 {
		fams := gather(t, m)
		if due, age, queued := value(fams, "qinglong_schedule_due_rows"), value(fams, "qinglong_schedule_oldest_due_age_seconds"),
			value(fams, "qinglong_runs", "state", "queued"); due != 4 || age != 2.5 || queued != 5 {
			t.Fatalf("due %g, oldest age %g, queued %g; want 4, 2.5, 5", due, age, queued)
		}
	}
	if reads != 1 {
		t.Fatalf("three scrapes within the cache period read the store %d times, want once", reads)
	}
	m2 := New(Config{Profile: "standalone", CacheFor: time.Nanosecond, Monitor: func(context.Context, int) (schedule.MonitorSnapshot, error) {
		return schedule.MonitorSnapshot{}, errors.New("database gone")
	}})
	fams := gather(t, m2)
	if got := value(fams, "qinglong_monitor_read_failures_total"); got != 1 {
		t.Errorf("read failures %g, want 1", got)
	}
	if _, present := fams["qinglong_schedule_due_rows"]; present {
		t.Error("a failed read still reported the backlog")
	}
}

// The age of the oldest queued Run is the store's own time since that Run
// was queued, not the server's clock, and 0 (not absent) while nothing is
// queued, so an alert on it has a series from the start.
func TestTheOldestQueuedRunsAgeIsStoreTimeSinceItWasQueued(t *testing.T) {
	snap := schedule.MonitorSnapshot{NowMs: 90_000, Runs: map[run.State]int{run.Queued: 3}, OldestQueuedAtMs: new(int64(30_000))}
	m := New(Config{Profile: "standalone", CacheFor: time.Nanosecond, Monitor: func(context.Context, int) (schedule.MonitorSnapshot, error) {
		return snap, nil
	}})
	if got := value(gather(t, m), "qinglong_runs_oldest_queued_age_seconds"); got != 60 {
		t.Fatalf("oldest queued age %g s, want 60 (store time 90 s, queued at 30 s)", got)
	}
	snap = schedule.MonitorSnapshot{NowMs: 95_000, Runs: map[run.State]int{}}
	fams := gather(t, m)
	if _, present := fams["qinglong_runs_oldest_queued_age_seconds"]; !present {
		t.Fatal("with nothing queued the oldest queued age is absent, want 0")
	}
	if got := value(fams, "qinglong_runs_oldest_queued_age_seconds"); got != 0 {
		t.Fatalf("oldest queued age %g s with nothing queued, want 0", got)
	}
}

// A backfill's queued Runs are left out of the oldest queued age, which
// then reads the other Runs' wait, and have a gauge of their own: a large
// backfill draining behind the others does not read as Runs kept waiting.
func TestABackfillsQueuedRunsHaveTheirOwnOldestQueuedAge(t *testing.T) {
	snap := schedule.MonitorSnapshot{NowMs: 90_000, Runs: map[run.State]int{run.Queued: 3}, OldestQueuedAtMs: new(int64(80_000)),
		OldestBackfillQueuedAtMs: new(int64(30_000))}
	m := New(Config{Profile: "standalone", CacheFor: time.Nanosecond, Monitor: func(context.Context, int) (schedule.MonitorSnapshot, error) {
		return snap, nil
	}})
	fams := gather(t, m)
	if got := value(fams, "qinglong_runs_oldest_queued_age_seconds"); got != 10 {
		t.Fatalf("oldest queued age %g s, want 10, the Run a backfill did not admit", got)
	}
	if got := value(fams, "qinglong_runs_oldest_queued_backfill_age_seconds"); got != 60 {
		t.Fatalf("oldest queued backfill age %g s, want 60", got)
	}
	snap = schedule.MonitorSnapshot{NowMs: 95_000, Runs: map[run.State]int{}}
	if got := value(gather(t, m), "qinglong_runs_oldest_queued_backfill_age_seconds"); got != 0 {
		t.Fatalf("oldest queued backfill age %g s with nothing queued, want 0", got)
	}
}

// The metrics table of docs/operations.md lists, for each label with a
// closed set of values, exactly the values the endpoint exports: an
// operator writing a rule from the table must not miss a series.
func TestTheOperationsMetricsTableListsEveryExportedLabelValue(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := func(metric string) string {
		for line := range strings.SplitSeq(string(b), "\n") {
			if strings.HasPrefix(line, "| `"+metric+"`") {
				return line
			}
		}
		t.Fatalf("docs/operations.md has no row for %s", metric)
		return ""
	}
	// listed is every value quoted in the row's last column, the "what".
	listed := func(line string) []string {
		cols := strings.Split(strings.TrimSuffix(strings.TrimSpace(line), "|"), "|")
		var out []string
		for i, f := range strings.Split(cols[len(cols)-1], "`") {
			if i%2 == 1 {
				out = append(out, f)
			}
		}
		return out
	}
	var passed, states []string
	for _, r := range schedule.PassReasons {
		passed = append(passed, string(r))
	}
	for _, s := range schedule.UnfinishedStates {
		states = append(states, string(s))
	}
	var finished []string
	for _, s := range run.FinishedStates {
		finished = append(finished, string(s))
	}
	for _, c := range []struct {
		metric string
		want   []string
	}{
		{"qinglong_scheduler_occurrences_passed_total", passed},
		{"qinglong_runs", states},
		{"qinglong_readiness_state", ReadinessStates},
		{"qinglong_auth_failures_total", append(slices.Clone(AuthSurfaces), AuthReasons...)},
		{"qinglong_notification_deliveries_total", notify.Outcomes},
		{"qinglong_runs_finished_total", finished},
		{"qinglong_scheduler_claims_given_back_total", GiveBackResults},
		{"qinglong_retention_deleted_total", DeletedKinds},
		{"qinglong_workers", WorkerStateNames},
	} {
		if got := listed(row(c.metric)); !slices.Equal(got, c.want) {
			t.Errorf("docs/operations.md lists %s values %v, the endpoint exports %v", c.metric, got, c.want)
		}
	}
}

// Every outcome of a finished Run has a series at 0 from the start (a rate
// over failed Runs is 0, not absent, before the first failure); the
// reports of store operations add to their outcome, a round's cancels
// included, and a report of no finish adds nothing.
func TestFinishedRunsAreCountedByOutcomeFromZero(t *testing.T) {
	m := New(Config{Profile: "standalone"})
	fams := gather(t, m)
	for _, s := range run.FinishedStates {
		if got := value(fams, "qinglong_runs_finished_total", "outcome", string(s)); got != 0 {
			t.Errorf("runs_finished_total{outcome=%q} = %g before any Run finished, want a series at 0", s, got)
		}
	}
	m.RunFinished(run.Failed)
	m.RunFinished("")
	m.RunFinished(run.RetryWait)
	m.RunsFinished(run.FinishCounts{Lost: 2, TimedOut: 1})
	m.ObserveRound(schedule.Summary{Finished: run.FinishCounts{Cancelled: 3}})
	fams = gather(t, m)
	want := map[run.State]float64{run.Succeeded: 0, run.Failed: 1, run.TimedOut: 1, run.Cancelled: 3, run.Lost: 2}
	for s, n := range want {
		if got := value(fams, "qinglong_runs_finished_total", "outcome", string(s)); got != n {
			t.Errorf("runs_finished_total{outcome=%q} = %g, want %g", s, got, n)
		}
	}
	if n := len(fams["qinglong_runs_finished_total"].GetMetric()); n != len(run.FinishedStates) {
		t.Errorf("runs_finished_total has %d series, want one per finished state (%d)", n, len(run.FinishedStates))
	}
}

// A cluster replica counts the claims it gave back by result, both series
// at 0 from the start (an alert on failed releases has a series before the
// first); a single-node server, whose takes hold no claim, exports no such
// metric and ignores the call.
func TestClaimsGivenBackAreCountedOnAClusterReplicaOnly(t *testing.T) {
	m := New(Config{Profile: ProfileCluster})
	for _, r := range GiveBackResults {
		if got := value(gather(t, m), "qinglong_scheduler_claims_given_back_total", "result", r); got != 0 {
			t.Errorf("claims_given_back_total{result=%q} = %g before any release, want a series at 0", r, got)
		}
	}
	m.ClaimsGivenBack(5, 0)
	m.ClaimsGivenBack(0, 3)
	fams := gather(t, m)
	if got := value(fams, "qinglong_scheduler_claims_given_back_total", "result", GiveBackReleased); got != 5 {
		t.Errorf("released: %g, want 5", got)
	}
	if got := value(fams, "qinglong_scheduler_claims_given_back_total", "result", GiveBackFailed); got != 3 {
		t.Errorf("failed: %g, want 3", got)
	}

	single := New(Config{Profile: "edge"})
	single.ClaimsGivenBack(2, 1)
	if f, ok := gather(t, single)["qinglong_scheduler_claims_given_back_total"]; ok {
		t.Errorf("an edge server exports %s: %v", f.GetName(), f.GetMetric())
	}
}

// Every reason a profile's store can give has its decisions series at 0
// from the start, under its outcome, so increase() over a short outage
// counts all of it rather than missing the series' first sample; a single
// node exports none of the cluster's own reasons.
func TestEveryDecisionReasonStartsAtZero(t *testing.T) {
	for _, c := range []struct {
		profile         string
		present, absent []schedule.Reason
	}{
		{ProfileCluster, []schedule.Reason{schedule.ReasonConnectionLost, schedule.ReasonClaimLost, schedule.ReasonOutcomeUnknown, schedule.ReasonWriteFailed}, nil},
		{"standalone", []schedule.Reason{schedule.ReasonLockNotAvailable, schedule.ReasonDiskFull, schedule.ReasonOutcomeUnknown, schedule.ReasonStateVersionChanged},
			[]schedule.Reason{schedule.ReasonClaimLost, schedule.ReasonConnectionLost, schedule.ReasonTooManyConnections, schedule.ReasonInsufficientResources}},
	} {
		fams := gather(t, New(Config{Profile: c.profile}))
		for _, r := range c.present {
			if got := value(fams, "qinglong_scheduler_decisions_total", "outcome", string(r.Outcome()), "reason", string(r)); got != 0 {
				t.Errorf("%s: decisions{outcome=%q, reason=%q} = %g before any decision, want a series at 0", c.profile, r.Outcome(), r, got)
			}
		}
		for _, r := range c.absent {
			if got := value(fams, "qinglong_scheduler_decisions_total", "outcome", string(r.Outcome()), "reason", string(r)); got != -1 {
				t.Errorf("%s exports decisions{reason=%q}, which only the cluster's store gives", c.profile, r)
			}
		}
	}
}

// qinglong_info names the binary's version and commit beside the profile,
// so servers of different versions (a rolling upgrade left half done) can
// be told apart by count by (version); a build without them says unknown.
func TestInfoNamesTheProfileVersionAndCommit(t *testing.T) {
	fams := gather(t, New(Config{Profile: ProfileCluster, Version: "v1.2.3", Commit: "0a1b2c3d"}))
	if got := value(fams, "qinglong_info", "commit", "0a1b2c3d", "profile", ProfileCluster, "version", "v1.2.3"); got != 1 {
		t.Errorf("qinglong_info{commit=0a1b2c3d, profile=cluster, version=v1.2.3} = %g, want 1", got)
	}
	fams = gather(t, New(Config{Profile: "edge"}))
	if got := value(fams, "qinglong_info", "commit", "unknown", "profile", "edge", "version", "unknown"); got != 1 {
		t.Errorf("qinglong_info of a build without a version or commit = %g, want 1 with both unknown", got)
	}
}

// Catch-ups (admissions later than the misfire grace) are observed in
// their own histogram, so that the on-time admission lag is not lifted
// for a day by one outage.
func TestCatchUpsAreObservedApartFromTheAdmissionLag(t *testing.T) {
	m := New(Config{Profile: "standalone"})
	m.ObserveRound(schedule.Summary{Counts: map[schedule.Outcome]int{schedule.Admitted: 3}, AdmissionLagMs: []int64{100, 200}, CatchUpLagMs: []int64{3_600_000}})
	fams := gather(t, m)
	if h := fams["qinglong_scheduler_admission_lag_seconds"].GetMetric()[0].GetHistogram(); h.GetSampleCount() != 2 || h.GetSampleSum() > 0.3001 {
		t.Errorf("admission lag: %d samples summing %g, want the 2 on-time ones summing 0.3", h.GetSampleCount(), h.GetSampleSum())
	}
	if h := fams["qinglong_scheduler_catch_up_lag_seconds"].GetMetric()[0].GetHistogram(); h.GetSampleCount() != 1 || h.GetSampleSum() != 3600 {
		t.Errorf("catch-up lag: %d samples summing %g, want the one catch-up of 3600 s", h.GetSampleCount(), h.GetSampleSum())
	}
}
