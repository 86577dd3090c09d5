package storetest

import (
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/run"
)

// RunRetention runs retention's contract against an adapter: what each
// rule deletes and keeps, the cap's order, concurrent passes, and
// admission during deletion.
func RunRetention(t *testing.T, newFixture Factory) {
	tests := map[string]func(*testing.T, Fixture){
		"FinishedRunsPastTheirAgeGoWithTheirAttemptsEventsAndLogs":      testRetentionRuns,
		"OldLogsGoAndTheirRunsStay":                                     testRetentionLogs,
		"TheLogCapDeletesTheOldestLogsFirst":                            testRetentionCap,
		"ConcurrentPassesDeleteEachRowOnce":                             testRetentionConcurrent,
		"AdmissionGoesOnWhileRetentionDeletes":                          testRetentionWhileAdmitting,
		"ADryRunCountsAndDeletesNothing":                                testRetentionDryRun,
		"ALogRetentionRemovedIsRecordedWithItsSize":                     testRetentionLogRecord,
		"LostRunsPastTheirAgeGoWithTheirAttemptsEventsAndLogs":          testRetentionLostRuns,
		"ALostRunIsKeptForThePeriodFromWhenItWasFoundLost":              testRetentionLostAge,
		"ALostRunWithAnAttemptStillOpenStays":                           testRetentionLostOpen,
		"TheLogsRuleAndTheCapTakeALostRunsLogsAsAFinishedRunsLogs":      testRetentionLostLogs,
		"DeliveredAndDeadNotificationsPastTheirAgeGoAndPendingOnesStay": testRetentionNotifications,
		"EachBatchSeesWhatTheWholePassDeletedSoFar":                     testRetentionSoFar,
		"ExpiredSessionsGoInBatchesWithoutASignin":                      testRetentionSessions,
		"TheCapsBatchesGrowWhileTheyAreQuickAndStayAtTheirSizeWhenNot":  testRetentionCapBatchesGrow,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newFixture(t))
		})
	}
}

const day = retention.Day

// retentionDefs publishes one trigger and admits one Run of it: the
// template the seeded Runs copy, itself unfinished (queued).
func retentionDefs(t testing.TB, f Fixture) (defs, string) {
	t.Helper()
	d := initialisedDefs(t, f, "kept")
	return d, admitNow(t, f, d.Trigger.TriggerID, 1_000)
}

func now(t testing.TB, f Fixture) int64 {
	t.Helper()
	ms, err := f.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// logSize is the size of the logs the cases seed: one block of the log
// cap's count (retention.DiskBytes), so a log counts what it holds in every
// store, whether the store counts blocks (the log files of standalone and
// edge) or bytes (the cluster's log rows).
const logSize = retention.LogBlockBytes

func seed(t testing.TB, f Fixture, template string, n int, ago time.Duration, logBytes int) []string {
	t.Helper()
	out, err := f.SeedFinished(t.Context(), template, n, now(t, f)-ago.Milliseconds(), logBytes)
	if err != nil {
		t.Fatalf("seeding %d finished runs: %v", n, err)
	}
	return out
}

func seedLost(t testing.TB, f Fixture, template string, n int, ago time.Duration, logBytes int) []string {
	t.Helper()
	out, err := f.SeedLost(t.Context(), template, n, now(t, f)-ago.Milliseconds(), logBytes)
	if err != nil {
		t.Fatalf("seeding %d lost runs: %v", n, err)
	}
	return out
}

func requireGone(t testing.TB, f Fixture, runIDs []string) {
	t.Helper()
	for _, id := range runIDs {
		if _, err := f.Runs.RunGet(t.Context(), id); !qlerror.Is(err, qlerror.NotFound) {
			t.Fatalf("deleted run %s: got %v, want not found", id, err)
		}
	}
}

func requireState(t testing.TB, f Fixture, runID string, want run.State) {
	t.Helper()
	got, err := f.Runs.RunGet(t.Context(), runID)
	if err != nil || got.Run.State != want {
		t.Fatalf("run %s: %+v, %v; want it kept, %s", runID, got.Run, err, want)
	}
}

func attemptsOf(t testing.TB, f Fixture, runIDs []string) []string {
	t.Helper()
	var out []string
	for _, id := range runIDs {
		got, err := f.Runs.RunGet(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range got.Attempts {
			out = append(out, a.ID)
		}
	}
	return out
}

func requireLogs(t testing.TB, f Fixture, attempts []string, want bool) {
	t.Helper()
	for _, a := range attempts {
		has, err := f.HasLog(t.Context(), a)
		if err != nil {
			t.Fatal(err)
		}
		if has != want {
			t.Errorf("attempt %s has a log: %v, want %v", a, has, want)
		}
	}
}

func pass(t testing.TB, f Fixture, p retention.Policy) retention.Report {
	t.Helper()
	rep, err := retention.Pass(t.Context(), f.Retention, p, retention.Options{BatchSize: 2, Pause: time.Millisecond, Share: 1, Budget: time.Minute})
	if err != nil {
		t.Fatalf("retention pass %s: %v", p, err)
	}
	return rep
}

func requireCounts(t testing.TB, f Fixture, triggerID string, want Counts) {
	t.Helper()
	got, err := f.Counts(t.Context(), triggerID)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("trigger %s holds %+v, want %+v", triggerID, got, want)
	}
}

func testRetentionRuns(t *testing.T, f Fixture) {
	d, template := retentionDefs(t, f)
	old := seed(t, f, template, 3, 40*day, logSize)
	young := seed(t, f, template, 2, day, logSize)
	if err := f.Backdate(t.Context(), template, 40*day); err != nil {
		t.Fatal(err)
	}
	oldAttempts, youngAttempts := attemptsOf(t, f, old), attemptsOf(t, f, young)
	rep := pass(t, f, retention.Policy{RunsAge: 30 * day})
	want := retention.Deleted{Runs: 3, Attempts: 3, Events: 9, Logs: 3, LogBytes: 3 * logSize}
	if rep.Total != want {
		t.Fatalf("pass deleted %+v, want %+v", rep.Total, want)
	}
	requireCounts(t, f, d.Trigger.TriggerID, Counts{Runs: 3, Attempts: 3, Events: 2 + 6})
	for _, id := range old {
		if _, err := f.Runs.RunGet(t.Context(), id); !qlerror.Is(err, qlerror.NotFound) {
			t.Fatalf("deleted run %s: got %v, want not found", id, err)
		}
	}
	requireLogs(t, f, oldAttempts, false)
	requireLogs(t, f, youngAttempts, true)
	got, err := f.Runs.RunGet(t.Context(), template)
	if err != nil || got.Run.State != run.Queued {
		t.Fatalf("the unfinished run admitted 40 days ago: %+v, %v; want it kept, queued", got.Run, err)
	}
	if again := pass(t, f, retention.Policy{RunsAge: 30 * day}); again.Total != (retention.Deleted{}) {
		t.Fatalf("a second pass deleted %+v, want nothing", again.Total)
	}
}

func testRetentionLogs(t *testing.T, f Fixture) {
	d, template := retentionDefs(t, f)
	old := seed(t, f, template, 2, 10*day, logSize)
	young := seed(t, f, template, 1, day, logSize)
	rep := pass(t, f, retention.Policy{LogsAge: 7 * day})
	if want := (retention.Deleted{Logs: 2, LogBytes: 2 * logSize}); rep.Total != want {
		t.Fatalf("pass deleted %+v, want %+v", rep.Total, want)
	}
	requireCounts(t, f, d.Trigger.TriggerID, Counts{Runs: 4, Attempts: 4, Events: 2 + 9})
	requireLogs(t, f, attemptsOf(t, f, old), false)
	requireLogs(t, f, attemptsOf(t, f, young), true)
	if again := pass(t, f, retention.Policy{LogsAge: 7 * day}); again.Total != (retention.Deleted{}) {
		t.Fatalf("a second pass deleted %+v, want nothing", again.Total)
	}
}

// testRetentionSoFar: the progress a pass reports with each batch counts
// every rule before it, not its own rule's batches alone.
func testRetentionSoFar(t *testing.T, f Fixture) {
	_, template := retentionDefs(t, f)
	seed(t, f, template, 3, 40*day, logSize)
	seed(t, f, template, 2, 10*day, logSize)
	var sum retention.Deleted
	var lastLogs retention.Deleted
	rep, err := retention.Pass(t.Context(), f.Retention, retention.Policy{RunsAge: 30 * day, LogsAge: 7 * day},
		retention.Options{BatchSize: 2, Pause: time.Millisecond, Share: 1, Budget: time.Minute,
			OnBatch: func(k retention.Kind, batch, soFar retention.Deleted) {
				sum.Add(batch)
				if soFar != sum {
					t.Errorf("after a %s batch of %+v: so far %+v, want the pass's %+v", k, batch, soFar, sum)
				}
				if k == retention.KindLogs {
					lastLogs = soFar
				}
			}})
	if err != nil {
		t.Fatal(err)
	}
	if want := (retention.Deleted{Runs: 3, Attempts: 3, Events: 9, Logs: 5, LogBytes: 5 * logSize}); rep.Total != want || lastLogs != want {
		t.Fatalf("pass deleted %+v, the logs rule's last batch saw %+v so far; want both %+v", rep.Total, lastLogs, want)
	}
}

func testRetentionCap(t *testing.T, f Fixture) {
	_, template := retentionDefs(t, f)
	oldest := attemptsOf(t, f, seed(t, f, template, 1, 3*day, logSize))
	middle := attemptsOf(t, f, seed(t, f, template, 1, 2*day, logSize))
	newest := attemptsOf(t, f, seed(t, f, template, 1, day, logSize))
	if rep := pass(t, f, retention.Policy{LogBytes: 5 * logSize / 2}); rep.Total != (retention.Deleted{Logs: 1, LogBytes: logSize}) {
		t.Fatalf("a cap of two and a half logs over three deleted %+v, want the oldest log", rep.Total)
	}
	requireLogs(t, f, oldest, false)
	requireLogs(t, f, append(middle, newest...), true)
	if rep := pass(t, f, retention.Policy{LogBytes: logSize}); rep.Total != (retention.Deleted{Logs: 1, LogBytes: logSize}) {
		t.Fatalf("a cap of one log over two deleted %+v, want the older log", rep.Total)
	}
	requireLogs(t, f, middle, false)
	requireLogs(t, f, newest, true)
}

func testRetentionCapBatchesGrow(t *testing.T, f Fixture) {
	_, template := retentionDefs(t, f)
	const n = 120
	capPass := func(target time.Duration) retention.Report {
		t.Helper()
		seed(t, f, template, n, 3*day, logSize)
		rep, err := retention.Pass(t.Context(), f.Retention, retention.Policy{LogBytes: logSize},
			retention.Options{BatchSize: 2, MaxBatchSize: 32, BatchTarget: target, Pause: time.Millisecond, Share: 1, Budget: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Total.Logs < n-1 {
			t.Fatalf("a cap of one log over %d or more deleted %+v, want all but one", n, rep.Total)
		}
		return rep
	}
	// Every batch slower than a nanosecond: each stays at the first size.
	if rep := capPass(time.Nanosecond); rep.Batches < (n-1)/2 {
		t.Fatalf("batches over their target took %d logs in %d batches, want at most 2 a batch", rep.Total.Logs, rep.Batches)
	}
	// Every batch under half an hour: 2, 4, 8, 16, then 32 a batch.
	if rep := capPass(time.Hour); rep.Batches > 8 {
		t.Fatalf("quick batches took %d logs in %d batches, want them grown to 32 (at most 8 batches)", rep.Total.Logs, rep.Batches)
	}
}

func testRetentionConcurrent(t *testing.T, f Fixture) {
	d, template := retentionDefs(t, f)
	const n = 60
	seed(t, f, template, n, 40*day, logSize)
	var wg sync.WaitGroup
	reps := make([]retention.Report, 2)
	errs := make([]error, 2)
	for i := range reps {
		wg.Go(func() {
			reps[i], errs[i] = retention.Pass(t.Context(), f.Retention, retention.Policy{RunsAge: 30 * day}, retention.Options{BatchSize: 4, Pause: time.Millisecond, Share: 1, Budget: time.Minute})
		})
	}
	wg.Wait()
	var sum retention.Deleted
	for i := range reps {
		if errs[i] != nil {
			t.Fatalf("pass %d: %v", i, errs[i])
		}
		sum.Add(reps[i].Total)
	}
	if want := (retention.Deleted{Runs: n, Attempts: n, Events: 3 * n, Logs: n, LogBytes: logSize * n}); sum != want {
		t.Fatalf("two concurrent passes deleted %+v together (%+v and %+v), want each row once: %+v", sum, reps[0].Total, reps[1].Total, want)
	}
	requireCounts(t, f, d.Trigger.TriggerID, Counts{Runs: 1, Attempts: 1, Events: 2})
}

func testRetentionWhileAdmitting(t *testing.T, f Fixture) {
	kept := newDefs(t, f, "kept", quietCron(t, f))
	busy := initialisedDefs(t, f, "busy")
	template := admitNow(t, f, kept.Trigger.TriggerID, 1_000)
	const n = 300
	seed(t, f, template, n, 40*day, 10)
	done := make(chan struct{})
	var rep retention.Report
	var perr error
	go func() {
		defer close(done)
		rep, perr = retention.Pass(t.Context(), f.Retention, retention.Policy{RunsAge: 30 * day}, retention.Options{BatchSize: 8, Pause: time.Millisecond, Share: 0.5, Budget: time.Minute})
	}()
	const admitted = 5
	// Each admission is less late than the one before, so no two share an
	// instant however little time passes between them.
	for i := range admitted {
		admitNow(t, f, busy.Trigger.TriggerID, int64(1_000-i))
	}
	<-done
	if perr != nil {
		t.Fatal(perr)
	}
	if rep.Total.Runs != n {
		t.Fatalf("the pass deleted %d runs, want %d", rep.Total.Runs, n)
	}
	requireCounts(t, f, busy.Trigger.TriggerID, Counts{Runs: admitted, Attempts: admitted, Events: 2 * admitted})
	requireCounts(t, f, kept.Trigger.TriggerID, Counts{Runs: 1, Attempts: 1, Events: 2})
}

func testRetentionDryRun(t *testing.T, f Fixture) {
	d, template := retentionDefs(t, f)
	seed(t, f, template, 2, 40*day, logSize)
	seed(t, f, template, 1, 10*day, logSize)
	seed(t, f, template, 1, day, logSize)
	est, err := f.Retention.RetentionEstimate(t.Context(), retention.Policy{RunsAge: 30 * day, LogsAge: 7 * day, LogBytes: logSize / 2})
	if err != nil {
		t.Fatal(err)
	}
	want := map[retention.Kind]retention.Deleted{
		retention.KindRuns:     {Runs: 2, Attempts: 2, Events: 6, Logs: 2, LogBytes: 2 * logSize},
		retention.KindLogs:     {Logs: 1, LogBytes: logSize},
		retention.KindLogBytes: {LogBytes: logSize / 2},
	}
	for k, w := range want {
		if est[k] != w {
			t.Errorf("estimate of %s: %+v, want %+v", k, est[k], w)
		}
	}
	requireCounts(t, f, d.Trigger.TriggerID, Counts{Runs: 5, Attempts: 5, Events: 2 + 12})
}

// testRetentionLogRecord: an attempt whose log retention removed says so
// and keeps the size it had, so `ql runs logs` can tell it from a log never
// written; the cap no longer counts it and no rule counts it again.
func testRetentionLogRecord(t *testing.T, f Fixture) {
	_, template := retentionDefs(t, f)
	old := seed(t, f, template, 1, 10*day, logSize)
	young := seed(t, f, template, 1, day, logSize)
	if rep := pass(t, f, retention.Policy{LogsAge: 7 * day}); rep.Total != (retention.Deleted{Logs: 1, LogBytes: logSize}) {
		t.Fatalf("pass deleted %+v, want the old log", rep.Total)
	}
	for _, c := range []struct {
		runs    []string
		removed bool
	}{{old, true}, {young, false}} {
		got, err := f.Runs.RunGet(t.Context(), c.runs[0])
		if err != nil || len(got.Attempts) != 1 {
			t.Fatalf("run %s: %+v, %v", c.runs[0], got, err)
		}
		if a := got.Attempts[0]; a.LogRemoved != c.removed || a.LogBytes != logSize {
			t.Errorf("attempt of run %s: removed %v holding %d bytes, want removed %v holding %d", c.runs[0], a.LogRemoved, a.LogBytes, c.removed, logSize)
		}
	}
	if rep := pass(t, f, retention.Policy{LogBytes: logSize / 2, RunsAge: 5 * day}); rep.Total != (retention.Deleted{Runs: 1, Attempts: 1, Events: 3, Logs: 1, LogBytes: logSize}) {
		t.Fatalf("a pass over the removed log and the young one deleted %+v, want the old run without its log counted again and the young log", rep.Total)
	}
}

// testRetentionLostRuns: a lost Run waits for a decision, but once it has
// been lost for the runs rule's age it goes as a finished Run does, with
// its attempts, events and logs, and the dry run counts it; one lost for
// less stays.
func testRetentionLostRuns(t *testing.T, f Fixture) {
	d, template := retentionDefs(t, f)
	old := seedLost(t, f, template, 3, 40*day, logSize)
	finished := seed(t, f, template, 1, 40*day, logSize)
	young := seedLost(t, f, template, 1, day, logSize)
	oldAttempts, youngAttempts := attemptsOf(t, f, old), attemptsOf(t, f, young)
	policy := retention.Policy{RunsAge: 30 * day}
	est, err := f.Retention.RetentionEstimate(t.Context(), policy)
	if err != nil {
		t.Fatal(err)
	}
	want := retention.Deleted{Runs: 4, Attempts: 4, Events: 12, Logs: 4, LogBytes: 4 * logSize}
	if est[retention.KindRuns] != want {
		t.Errorf("the dry run counted %+v, want %+v", est[retention.KindRuns], want)
	}
	if rep := pass(t, f, policy); rep.Total != want {
		t.Fatalf("pass deleted %+v, want the three old lost runs and the old finished one: %+v", rep.Total, want)
	}
	requireCounts(t, f, d.Trigger.TriggerID, Counts{Runs: 2, Attempts: 2, Events: 2 + 3})
	requireGone(t, f, append(old, finished...))
	requireLogs(t, f, oldAttempts, false)
	requireLogs(t, f, youngAttempts, true)
	requireState(t, f, young[0], run.Lost)
}

// testRetentionLostAge: a lost Run's age counts from when it was found
// lost, through the adapter's own path that finds it lost, not from its
// admission: admitted long ago but found lost now, it stays; found lost
// longer ago than the runs rule's age, it goes.
func testRetentionLostAge(t *testing.T, f Fixture) {
	d, admittedLongAgo := retentionDefs(t, f)
	if err := f.Backdate(t.Context(), admittedLongAgo, 40*day); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Finish(t.Context(), admittedLongAgo, run.AttemptLost); err != nil {
		t.Fatal(err)
	}
	lostLongAgo := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	if _, err := f.Finish(t.Context(), lostLongAgo, run.AttemptLost); err != nil {
		t.Fatal(err)
	}
	requireState(t, f, lostLongAgo, run.Lost)
	if err := f.Backdate(t.Context(), lostLongAgo, 40*day); err != nil {
		t.Fatal(err)
	}
	rep := pass(t, f, retention.Policy{RunsAge: 30 * day})
	if rep.Total.Runs != 1 || rep.Total.Attempts != 1 {
		t.Fatalf("pass deleted %+v, want the run found lost 40 days ago with its attempt", rep.Total)
	}
	requireGone(t, f, []string{lostLongAgo})
	requireState(t, f, admittedLongAgo, run.Lost)
}

// testRetentionLostOpen: a lost Run with an attempt still open (on
// PostgreSQL, leased) stays however long ago it was found lost, as a
// finished one would; its sibling with every attempt ended goes.
func testRetentionLostOpen(t *testing.T, f Fixture) {
	_, template := retentionDefs(t, f)
	lost := seedLost(t, f, template, 2, 40*day, logSize)
	if err := f.Tamper.ReopenAttempts(t.Context(), lost[0]); err != nil {
		t.Fatal(err)
	}
	if rep := pass(t, f, retention.Policy{RunsAge: 30 * day, LogsAge: 7 * day, LogBytes: logSize / 2}); rep.Total != (retention.Deleted{Runs: 1, Attempts: 1, Events: 3, Logs: 1, LogBytes: logSize}) {
		t.Fatalf("pass deleted %+v, want only the lost run whose attempt ended, with its log", rep.Total)
	}
	requireGone(t, f, lost[1:])
	requireState(t, f, lost[0], run.Lost)
	requireLogs(t, f, attemptsOf(t, f, lost[:1]), true)
}

// testRetentionLostLogs: the logs rule and the cap take a lost Run's logs
// as they take a finished Run's, oldest first, and the Run stays.
func testRetentionLostLogs(t *testing.T, f Fixture) {
	d, template := retentionDefs(t, f)
	oldest := seedLost(t, f, template, 1, 10*day, logSize)
	middle := seedLost(t, f, template, 1, 3*day, logSize)
	newest := seed(t, f, template, 1, day, logSize)
	if rep := pass(t, f, retention.Policy{LogsAge: 7 * day}); rep.Total != (retention.Deleted{Logs: 1, LogBytes: logSize}) {
		t.Fatalf("the logs rule deleted %+v, want the log of the run lost 10 days ago", rep.Total)
	}
	requireLogs(t, f, attemptsOf(t, f, oldest), false)
	if rep := pass(t, f, retention.Policy{LogBytes: 3 * logSize / 2}); rep.Total != (retention.Deleted{Logs: 1, LogBytes: logSize}) {
		t.Fatalf("a cap of one and a half logs over two deleted %+v, want the older log, the lost run's", rep.Total)
	}
	requireLogs(t, f, attemptsOf(t, f, middle), false)
	requireLogs(t, f, attemptsOf(t, f, newest), true)
	requireCounts(t, f, d.Trigger.TriggerID, Counts{Runs: 4, Attempts: 4, Events: 2 + 9})
	requireState(t, f, oldest[0], run.Lost)
	requireState(t, f, middle[0], run.Lost)
}

// testRetentionNotifications: the notifications rule deletes delivered and
// dead outbox rows created longer ago than its age, in batches of at most
// the limit, counted alike by a dry run; younger ones stay, and so does
// every pending row, however old (it is still to be sent), and the Runs
// the rows are about.
func testRetentionNotifications(t *testing.T, f Fixture) {
	ctx := t.Context()
	d := notifyDefs(t, f, "alpha", notify.Rule{On: notify.OnFailed, Channel: "ops"})
	i := 0
	// next finishes one more failed Run and returns its notification,
	// the only row not delivered, dead or waiting out a failure.
	next := func() string {
		t.Helper()
		i++
		runFinished(t, f, d.Trigger.TriggerID, i, run.AttemptFailed)
		ms := outbox(t, f)
		if len(ms) != i || ms[0].State != notify.Pending {
			t.Fatalf("after failed run %d the outbox holds %+v; want %d rows, the newest pending", i, ms, i)
		}
		return ms[0].ID
	}
	claim := func(id string) {
		t.Helper()
		got, err := f.Outbox.NotificationsClaim(ctx, claimTen)
		if err != nil || len(got) != 1 || got[0].ID != id {
			t.Fatalf("claim: %+v, %v; want notification %s alone", got, err, id)
		}
	}
	var delivered, dead []string
	for range 4 {
		id := next()
		claim(id)
		if err := f.Outbox.NotificationDelivered(ctx, id); err != nil {
			t.Fatal(err)
		}
		delivered = append(delivered, id)
	}
	for range 3 {
		id := next()
		claim(id)
		if err := f.Outbox.NotificationFailed(ctx, id, 1, 0, true, notify.Failure{Text: "gave up"}); err != nil {
			t.Fatal(err)
		}
		dead = append(dead, id)
	}
	retrying := next()
	claim(retrying)
	if err := f.Outbox.NotificationFailed(ctx, retrying, 1, time.Hour, false, notify.Failure{Reason: notify.ReasonReceiverStatus, Text: "the receiver answered 503"}); err != nil {
		t.Fatal(err)
	}
	unsent := next()

	old := append(append(slices.Clone(delivered[:3]), dead[:2]...), retrying, unsent)
	for _, id := range old {
		if err := f.BackdateNotification(ctx, id, 31*day); err != nil {
			t.Fatalf("backdate notification %s: %v", id, err)
		}
	}
	policy := retention.Policy{NotificationsAge: 30 * day}

	if rep := pass(t, f, retention.Policy{RunsAge: 30 * day, LogsAge: 7 * day}); rep.Total != (retention.Deleted{}) {
		t.Fatalf("a pass with the notifications rule off deleted %+v", rep.Total)
	}
	est, err := f.Retention.RetentionEstimate(ctx, policy)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[retention.Kind]retention.Deleted{retention.KindNotifications: {Notifications: 5}, retention.KindSessions: {}}; !maps.Equal(est, want) {
		t.Fatalf("dry run %+v, want %+v", est, want)
	}
	if n := len(outbox(t, f)); n != 9 {
		t.Fatalf("the dry run left %d notifications, want all 9", n)
	}

	b, err := f.Retention.RetentionBatch(ctx, retention.Batch{Kind: retention.KindNotifications, OlderThan: 30 * day, Limit: 2})
	if err != nil || b.Deleted != (retention.Deleted{Notifications: 2}) || !b.More || len(b.Kept) != 0 {
		t.Fatalf("one batch of 2: %+v, %v; want 2 deleted and more to do", b, err)
	}
	// Two batches of notifications, and the sessions rule's one (it has
	// no setting), which finds none.
	rep := pass(t, f, policy)
	if rep.Total != (retention.Deleted{Notifications: 3}) || rep.Batches != 3 {
		t.Fatalf("pass: %+v in %d batches; want the 3 old delivered or dead notifications left, in batches of 2, and one of sessions", rep.Total, rep.Batches)
	}
	var kept []string
	for _, m := range outbox(t, f) {
		kept = append(kept, m.ID)
	}
	want := []string{delivered[3], dead[2], retrying, unsent}
	slices.Sort(kept)
	slices.Sort(want)
	if !slices.Equal(kept, want) {
		t.Fatalf("kept notifications %v, want the young delivered and dead ones and both pending ones %v", kept, want)
	}
	if rep := pass(t, f, policy); rep.Total != (retention.Deleted{}) {
		t.Fatalf("a second pass deleted %+v, want nothing", rep.Total)
	}
	if c, err := f.Counts(ctx, d.Trigger.TriggerID); err != nil || c.Runs != 9 || c.Attempts != 9 {
		t.Fatalf("the notifications rule touched the Runs: %+v, %v; want all 9 with their attempts", c, err)
	}
}
