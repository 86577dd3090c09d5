// Package metrics is QingLong's Prometheus instrumentation, the same on
// every profile: what the scheduler decided and how late, how long its
// claims and commits took, what is due and not yet taken, the unfinished
// Runs and how long the oldest queued one has waited, the finished Runs by
// outcome, lost and retried attempts, notification deliveries, worker
// capacity (cluster) and readiness.
// Each server owns one Metrics with a registry of its own and serves it on
// a listener of its own (Listen) or, without one, on the API's behind a
// read token, in every readiness state.
//
// Names follow Prometheus conventions: a qinglong_ prefix, base units in
// the name (_seconds), _total for counters. Every label has a closed set of
// values (outcomes, reasons, states); no identifier is a label, but for the
// per-trigger series an operator turns on and caps (--metrics-per-trigger,
// per_trigger.go).
package metrics

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/qinglong/qinglong/internal/core/authlimit"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// Namespace prefixes every metric of QingLong.
const Namespace = "qinglong"

// DefaultCacheFor is how long one read of the store serves scrapes: however
// often and however many Prometheus servers scrape, a server reads its
// store for monitoring at most once per this.
const DefaultCacheFor = 5 * time.Second

// readTimeout bounds one monitoring read, well inside a scrape's timeout.
const readTimeout = 3 * time.Second

// Readiness states, as qinglong_readiness_state reports them. A server is
// in exactly one.
const (
	StateStarting            = "starting"
	StateReady               = "ready"
	StateDatabaseUnavailable = "database_unavailable"
	StateDraining            = "draining"
	// StateDatabaseMoved: a single-node server's database path no longer
	// names the file it opened (moved, deleted or replaced); it admits and
	// starts nothing until it does again.
	StateDatabaseMoved = "database_moved"
	// StateDatabaseCorrupt: a single-node server met a corrupt page of its
	// database file (SQLITE_CORRUPT, SQLITE_NOTADB); it admits and starts
	// nothing until it is stopped.
	StateDatabaseCorrupt = "database_corrupt"
	// StateClockBehindDatabase: a single-node server's clock reads earlier
	// than the newest time its database recorded; it admits nothing and
	// retention deletes nothing until the clock passes that time or its
	// clock wait ends.
	StateClockBehindDatabase = "clock_behind_database"
	// StateHeldForWorkers: a cluster replica holds admission and dispatch
	// for one run lease at its activation, since the database shows no
	// replica running for longer than that while workers may still run
	// commands it does not know (a restore).
	StateHeldForWorkers = "held_for_workers"
)

// ReadinessStates lists every readiness state.
var ReadinessStates = []string{StateStarting, StateReady, StateDatabaseUnavailable, StateDraining, StateDatabaseMoved, StateDatabaseCorrupt, StateClockBehindDatabase, StateHeldForWorkers}

// profileReadinessStates are the readiness states a server of the profile
// can be in, the series it exports: a single node's database file may move,
// break or be ahead of its clock, and only a replica holds for workers, so
// what ql-edge serves names no worker.
func profileReadinessStates(profile string) []string {
	if profile == ProfileCluster {
		return []string{StateStarting, StateReady, StateDatabaseUnavailable, StateDraining, StateHeldForWorkers}
	}
	return []string{StateStarting, StateReady, StateDatabaseUnavailable, StateDraining, StateDatabaseMoved, StateDatabaseCorrupt, StateClockBehindDatabase}
}

// Authentication surfaces, as qinglong_auth_failures_total labels them.
const (
	SurfaceAPI     = "api"
	SurfaceConsole = "console"
	SurfaceWorker  = "worker"
)

// AuthSurfaces lists every surface, AuthReasons every reason a failed
// authentication is counted under (the fields of authlimit.Failures).
var (
	AuthSurfaces = []string{SurfaceAPI, SurfaceConsole, SurfaceWorker}
	AuthReasons  = []string{"malformed", "unknown", "expired", "revoked", "throttled"}
)

// Results of giving claims back, as qinglong_scheduler_claims_given_back_total
// labels them (cluster only).
const (
	GiveBackReleased = "released"
	GiveBackFailed   = "failed"
)

// GiveBackResults lists every result of giving claims back.
var GiveBackResults = []string{GiveBackReleased, GiveBackFailed}

// authReasonCounts are f's counts in the order of AuthReasons.
func authReasonCounts(f authlimit.Failures) []uint64 {
	return []uint64{f.Malformed, f.Unknown, f.Expired, f.Revoked, f.Throttled}
}

// ProfileCluster is the profile of a cluster replica's metrics, whose
// help may speak of workers; every other profile's is a single node's.
const ProfileCluster = "cluster"

// Config is what a server tells its metrics.
type Config struct {
	// Profile is the server's profile (standalone, edge, cluster).
	Profile string
	// Version and Commit are the binary's, as `ql version` prints them:
	// qinglong_info's labels, so version skew across a rolling upgrade
	// shows (empty reads as "unknown").
	Version, Commit string
	// Monitor reads the store's monitoring snapshot; it may answer an
	// error while no store is available (a replica re-activating).
	Monitor func(ctx context.Context, limit int) (schedule.MonitorSnapshot, error)
	// Workers, cluster only, reads the live worker sessions and their
	// free slots; nil leaves those gauges out.
	Workers func(ctx context.Context) (sessions, freeSlots int, err error)
	// Unplaceable, cluster only, counts the queued Runs no live worker
	// may be given (none carries their placement, or, for a project with
	// an env, none carrying it reads project env), at most limit; nil
	// leaves the gauge out.
	Unplaceable func(ctx context.Context, limit int) (int, error)
	// WorkerStates, cluster only, counts the worker sessions of each of
	// WorkerStateNames (a state left out counts 0), the expired and lost
	// ones over WorkerExpiredWindow and at most limit; nil leaves
	// qinglong_workers out.
	WorkerStates func(ctx context.Context, limit int) (map[string]int, error)
	// Readiness is the server's readiness state, one of ReadinessStates.
	Readiness func() string
	// AuthFailures reads the failed authentications of each surface the
	// server has (keys from AuthSurfaces); nil leaves them out.
	AuthFailures func() map[string]authlimit.Failures
	// CacheFor is how long one store read serves scrapes (default
	// DefaultCacheFor).
	CacheFor time.Duration
	// Limit bounds every count of a store read (default
	// schedule.MonitorLimit).
	Limit int
	// PerTrigger is the most triggers given series of their own
	// (--metrics-per-trigger, 1–MaxPerTrigger), read with TriggerActivity
	// beside the other store reads; 0 leaves them out.
	PerTrigger      int
	TriggerActivity func(ctx context.Context, limit int) (schedule.TriggerActivitySnapshot, error)
	// Logger receives the warning that PerTrigger left triggers out.
	Logger *slog.Logger
}

// Metrics is one server's instrumentation.
type Metrics struct {
	reg *prometheus.Registry

	decisions     *prometheus.CounterVec
	passed        *prometheus.CounterVec
	lag           prometheus.Histogram
	catchUpLag    prometheus.Histogram
	claim         prometheus.Histogram
	commit        prometheus.Histogram
	roundFailures prometheus.Counter
	lost          prometheus.Counter
	retried       prometheus.Counter
	notifications *prometheus.CounterVec
	finished      *prometheus.CounterVec
	// givenBack is nil on a single-node server, whose takes hold no claim
	// to give back.
	givenBack *prometheus.CounterVec
	// dbServer is nil on a single-node server, which has no server to
	// name (dbserver.go).
	dbServer *prometheus.GaugeVec

	// state, retention, cacheFor and cluster serve the storage and
	// retention metrics (storage.go, retention.go).
	state     *stateCollector
	retention *retentionCollector
	cacheFor  time.Duration
	cluster   bool
}

// durationBuckets are the claim's and commit's: half a millisecond to ten
// seconds, a claim or commit beyond which has outlived a claim lease.
var durationBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// lagBuckets cover an on-time admission (milliseconds) up to a catch-up
// after an hour's outage.
var lagBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600}

// catchUpBuckets are the bounds of a catch-up's lag (seconds): an outage's
// length, from seconds past the grace to days.
var catchUpBuckets = []float64{10, 30, 60, 300, 900, 3600, 4 * 3600, 12 * 3600, 24 * 3600, 7 * 24 * 3600}

// New builds a server's metrics and registers them, with the Go runtime's
// and the process's own collectors, in a registry of its own.
func New(cfg Config) *Metrics {
	if cfg.CacheFor == 0 {
		cfg.CacheFor = DefaultCacheFor
	}
	if cfg.Limit == 0 {
		cfg.Limit = schedule.MonitorLimit
	}
	// A single-node server's help says only what it does: ql-edge, which
	// serves these metrics too, has no cluster or workers to speak of.
	lostHelp := "Attempts this server found lost: the server that ran them stopped unexpectedly, and its next start found them."
	retriedHelp := "Attempts this server gave a next attempt under their task's retry policy."
	if cfg.Profile == ProfileCluster {
		lostHelp = "Attempts this server found lost: their worker's lease passed."
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "scheduler", Name: "decisions_total",
			Help: "Scheduling decisions by outcome (admitted, initialized, skipped, raced, failed, unavailable) and, for raced, failed and unavailable, reason. Admitted counts occurrences that got their Run.",
		}, []string{"outcome", "reason"}),
		passed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "scheduler", Name: "occurrences_passed_total",
			Help: "Occurrences committed decisions passed over without a Run, by occurrence ledger reason (misfire, collapsed, catch_up_window, paused, outside_bounds, disabled, overlap, republished, project_archived, clock_went_back, restored).",
		}, []string{"reason"}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "scheduler", Name: "admission_lag_seconds",
			Help: "Per occurrence admitted within the misfire grace of its due time, its Run's creation time (database time; the store's clock on SQLite) " +
				"minus its due time (scheduled time plus jitter). Later admissions (catch-ups) are in catch_up_lag_seconds.",
			Buckets: lagBuckets,
		}),
		catchUpLag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "scheduler", Name: "catch_up_lag_seconds",
			Help: "Per occurrence admitted later than the misfire grace after its due time (a fire_once catch-up after an outage or a resume), " +
				"its Run's creation time minus its due time.",
			Buckets: catchUpBuckets,
		}),
		claim: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "scheduler", Name: "claim_duration_seconds",
			Help:    "Duration of one claim of due schedule rows (the take on SQLite), including empty ones.",
			Buckets: durationBuckets,
		}),
		commit: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "scheduler", Name: "commit_duration_seconds",
			Help:    "Duration of committing one claimed page's decisions (its commit groups side by side).",
			Buckets: durationBuckets,
		}),
		roundFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "scheduler", Name: "round_failures_total",
			Help: "Scheduling rounds that failed as a whole (the claim itself failed).",
		}),
		lost: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Name: "attempts_lost_total",
			Help: lostHelp,
		}),
		retried: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Name: "attempts_retried_total",
			Help: retriedHelp,
		}),
	}
	m.finished = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "runs_finished_total",
		Help: "Runs this server finished, by outcome: the state the Run finished in (succeeded, failed, timed_out, cancelled, or lost: " +
			"its attempt ended without an outcome and no retry follows). A Run counts once, in the server whose committed write moved it " +
			"from unfinished to finished: an attempt given a retry does not count, nor does a write that found the Run finished already " +
			"(a replayed completion, a raced sweep or cancel), nor a lost Run closed cancelled later; summed over servers, each finished " +
			"Run counts once. Runs cancelled by a command that writes the database itself, not through a server, count on no server.",
	}, []string{"outcome"})
	// Every outcome shows 0 from the start, so a rate over failed Runs is
	// 0, not absent, before the first failure.
	for _, s := range run.FinishedStates {
		m.finished.WithLabelValues(string(s))
	}
	m.notifications = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "notification_deliveries_total",
		Help: "Notification deliveries this server made, by outcome: delivered (2xx), failed (retried after its backoff) or dead (its last allowed attempt failed).",
	}, []string{"outcome"})
	// A receiver that has never failed still shows failed and dead at 0,
	// so an alert on their rate has a series from the start.
	for _, o := range notify.Outcomes {
		m.notifications.WithLabelValues(o)
	}
	// The outcomes every scheduler reaches exist from the start, so a
	// rate over them is 0, not absent, before the first decision.
	for _, o := range []schedule.Outcome{schedule.Admitted, schedule.Initialized, schedule.Skipped} {
		m.decisions.WithLabelValues(string(o), "")
	}
	// So does every reason this profile's store can give, under its
	// outcome: a short outage's increase() is its count, not the count
	// less the first sample of a series that appeared mid-incident.
	for _, r := range schedule.Reasons(cfg.Profile == ProfileCluster) {
		m.decisions.WithLabelValues(string(r.Outcome()), string(r))
	}
	for _, r := range schedule.PassReasons {
		m.passed.WithLabelValues(string(r))
	}
	if cfg.Profile == ProfileCluster {
		m.givenBack = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "scheduler", Name: "claims_given_back_total",
			Help: "Claims of schedule rows this replica gave back instead of committing them, by result: released (the row was free for any replica at once: " +
				"a stop, or the first activation after a lost database, gave back what its rounds had claimed) or failed (the release itself failed; those rows wait out their claim lease).",
		}, []string{"result"})
		for _, r := range GiveBackResults {
			m.givenBack.WithLabelValues(r)
		}
		m.dbServer = newDatabaseServer()
		m.reg.MustRegister(m.givenBack, m.dbServer)
	}
	info := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: Namespace, Name: "info", Help: "Always 1; its labels name the server's profile and its binary's version and commit (as `version` prints them).",
		ConstLabels: prometheus.Labels{"profile": cfg.Profile, "version": cmp.Or(cfg.Version, "unknown"), "commit": cmp.Or(cfg.Commit, "unknown")},
	})
	info.Set(1)
	m.state, m.retention, m.cacheFor, m.cluster = newStateCollector(cfg), newRetentionCollector(cfg.Profile == ProfileCluster), cfg.CacheFor, cfg.Profile == ProfileCluster
	m.reg.MustRegister(m.decisions, m.passed, m.lag, m.catchUpLag, m.claim, m.commit, m.roundFailures, m.lost, m.retried, m.notifications, m.finished, info,
		m.state, m.retention,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the registry in Prometheus's exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// ObserveRound records one committed scheduling round.
func (m *Metrics) ObserveRound(s schedule.Summary) {
	for _, o := range []schedule.Outcome{schedule.Admitted, schedule.Initialized, schedule.Skipped} {
		if n := s.Counts[o]; n > 0 {
			m.decisions.WithLabelValues(string(o), "").Add(float64(n))
		}
	}
	for reason, n := range s.Reasons {
		outcome := reason.Outcome()
		if outcome == "" {
			// A code outside the closed set (a store's defect): the round
			// counted it failed, and so is it here, under its own name.
			outcome = schedule.Failed
		}
		m.decisions.WithLabelValues(string(outcome), string(reason)).Add(float64(n))
	}
	for reason, n := range s.Passed {
		m.passed.WithLabelValues(string(reason)).Add(float64(n))
	}
	m.RunsFinished(s.Finished)
	for _, ms := range s.AdmissionLagMs {
		m.lag.Observe(float64(max(ms, 0)) / 1000)
	}
	for _, ms := range s.CatchUpLagMs {
		m.catchUpLag.Observe(float64(ms) / 1000)
	}
	m.claim.Observe(s.Take.Seconds())
	if s.Groups > 0 {
		m.commit.Observe(s.Commit.Seconds())
	}
}

// ClaimsGivenBack records released rows whose claims were given back and
// failed tickets whose release failed; nothing on a single-node server.
func (m *Metrics) ClaimsGivenBack(released, failed int) {
	if m.givenBack == nil {
		return
	}
	m.givenBack.WithLabelValues(GiveBackReleased).Add(float64(released))
	m.givenBack.WithLabelValues(GiveBackFailed).Add(float64(failed))
}

// RoundFailed records a round that failed as a whole.
func (m *Metrics) RoundFailed() { m.roundFailures.Inc() }

// AttemptsLost records n attempts found lost.
func (m *Metrics) AttemptsLost(n int) { m.lost.Add(float64(n)) }

// AttemptsRetried records n attempts given a next attempt.
func (m *Metrics) AttemptsRetried(n int) { m.retried.Add(float64(n)) }

// RunsFinished records the Runs a store operation of this server reported
// it finished (run.Finishes): never the ones it found finished already.
func (m *Metrics) RunsFinished(c run.FinishCounts) {
	for _, s := range run.FinishedStates {
		if n := c.Of(s); n > 0 {
			m.finished.WithLabelValues(string(s)).Add(float64(n))
		}
	}
}

// RunFinished records one Run a store operation of this server reported
// it finished in s; "" (the operation finished no Run) records nothing.
func (m *Metrics) RunFinished(s run.State) {
	var c run.FinishCounts
	c.Add(s)
	m.RunsFinished(c)
}

// NotificationDelivery records one notification delivery's outcome (one
// of notify.Outcomes).
func (m *Metrics) NotificationDelivery(outcome string) {
	m.notifications.WithLabelValues(outcome).Inc()
}

// stateCollector reads the store at scrape time, at most once per
// CacheFor: the backlog, the unfinished Runs, how long the queue's oldest
// has waited and (cluster) the workers.
// Readiness is read at every scrape; it costs nothing.
type stateCollector struct {
	cfg Config

	due, oldest, runs, oldestQueued, oldestBackfill, sessions, free, unplaceable, ready, readiness, readFailures, authFailures *prometheus.Desc

	mu      sync.Mutex
	readAt  time.Time
	snap    *schedule.MonitorSnapshot
	workers *[2]int
	// unplaced is nil while its last read failed or when the server has
	// no workers.
	unplaced *int
	failed   int
	// perTrigger is nil when per-trigger series are off; activity is nil
	// while its last read failed.
	perTrigger *perTrigger
	activity   *schedule.TriggerActivitySnapshot
	// states are the readiness states the server's profile can be in.
	states []string
	// workerStates is qinglong_workers (workers.go).
	workerStates workerStates
}

func newStateCollector(cfg Config) *stateCollector {
	desc := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", name), help, labels, nil)
	}
	// A single-node server has no worker surface, so its help names none;
	// the worker gauges are collected only where Workers or Unplaceable is
	// set, a cluster replica, so no single-node scrape carries their help.
	surfaces := []string{SurfaceAPI, SurfaceConsole}
	if cfg.Profile == ProfileCluster {
		surfaces = AuthSurfaces
	}
	var per *perTrigger
	if cfg.PerTrigger > 0 && cfg.TriggerActivity != nil {
		per = newPerTrigger(cfg)
	}
	return &stateCollector{
		cfg:          cfg,
		perTrigger:   per,
		states:       profileReadinessStates(cfg.Profile),
		workerStates: newWorkerStates(),
		due:          desc("schedule_due_rows", fmt.Sprintf("Schedule rows due and not taken by any claim, of enabled, unpaused triggers; counted up to %d (a value of %[1]d means at least that).", cfg.Limit)),
		oldest:       desc("schedule_oldest_due_age_seconds", "Store time now minus the due time of the oldest of those rows; 0 when none is due."),
		runs:         desc("runs", fmt.Sprintf("Unfinished Runs per state, each counted up to %d.", cfg.Limit), "state"),
		oldestQueued: desc("runs_oldest_queued_age_seconds", "Store time now minus the time the longest-waiting queued Run was queued (a retried Run: queued again when its backoff ended), a backfill's Runs left out; 0 when none is queued."),
		oldestBackfill: desc("runs_oldest_queued_backfill_age_seconds", "Store time now minus the time the longest-waiting queued Run a backfill admitted was queued; 0 when none is queued. "+
			"A backfill's Runs are dispatched after every other, so this one grows while a backfill drains."),
		sessions:     desc("worker_sessions", "Live worker sessions: active, their lease not passed (cluster)."),
		free:         desc("worker_free_slots", "Free slots of the live worker sessions: capacity minus running attempts (cluster)."),
		unplaceable:  desc("runs_unplaceable", fmt.Sprintf("Queued Runs no live worker taking work may be given, all of them while none takes work (cluster): none carries their task's placement labels, or their project has an env and none of those carrying them reads it (workers_too_old); counted up to %d.", cfg.Limit)),
		ready:        desc("ready", "1 when the server is ready (/readyz answers 200), else 0."),
		readiness:    desc("readiness_state", "1 for the server's current readiness state, 0 for the others.", "state"),
		readFailures: desc("monitor_read_failures_total", "Monitoring reads of the store that failed; while the last one failed, the store-read metrics are absent."),
		authFailures: desc("auth_failures_total", "Failed authentications by surface ("+strings.Join(surfaces, ", ")+") and reason: malformed, unknown, expired or revoked credentials (refused with 401, or a failed console sign-in), and throttled requests (429: their address, or the console user name, failed too often).", "surface", "reason"),
	}
}

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.due, c.oldest, c.runs, c.oldestQueued, c.oldestBackfill, c.sessions, c.free, c.unplaceable, c.ready, c.readiness, c.readFailures, c.authFailures, c.workerStates.desc} {
		ch <- d
	}
	if c.perTrigger != nil {
		c.perTrigger.describe(ch)
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	if c.cfg.Readiness != nil {
		state := c.cfg.Readiness()
		ready := 0.0
		if state == StateReady {
			ready = 1
		}
		ch <- prometheus.MustNewConstMetric(c.ready, prometheus.GaugeValue, ready)
		for _, s := range c.states {
			v := 0.0
			if s == state {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(c.readiness, prometheus.GaugeValue, v, s)
		}
	}
	if c.cfg.AuthFailures != nil {
		bySurface := c.cfg.AuthFailures()
		for _, surface := range AuthSurfaces {
			f, ok := bySurface[surface]
			if !ok {
				continue
			}
			for i, n := range authReasonCounts(f) {
				ch <- prometheus.MustNewConstMetric(c.authFailures, prometheus.CounterValue, float64(n), surface, AuthReasons[i])
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.readAt) >= c.cfg.CacheFor {
		c.refresh()
	}
	ch <- prometheus.MustNewConstMetric(c.readFailures, prometheus.CounterValue, float64(c.failed))
	if c.snap != nil {
		s := c.snap
		ch <- prometheus.MustNewConstMetric(c.due, prometheus.GaugeValue, float64(s.Due))
		age := 0.0
		if s.OldestDueAtMs != nil {
			age = float64(max(s.NowMs-*s.OldestDueAtMs, 0)) / 1000
		}
		ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age)
		for _, st := range schedule.UnfinishedStates {
			ch <- prometheus.MustNewConstMetric(c.runs, prometheus.GaugeValue, float64(s.Runs[st]), string(st))
		}
		ch <- prometheus.MustNewConstMetric(c.oldestQueued, prometheus.GaugeValue, ageSeconds(s.NowMs, s.OldestQueuedAtMs))
		ch <- prometheus.MustNewConstMetric(c.oldestBackfill, prometheus.GaugeValue, ageSeconds(s.NowMs, s.OldestBackfillQueuedAtMs))
	}
	if c.workers != nil {
		ch <- prometheus.MustNewConstMetric(c.sessions, prometheus.GaugeValue, float64(c.workers[0]))
		ch <- prometheus.MustNewConstMetric(c.free, prometheus.GaugeValue, float64(c.workers[1]))
	}
	if c.unplaced != nil {
		ch <- prometheus.MustNewConstMetric(c.unplaceable, prometheus.GaugeValue, float64(*c.unplaced))
	}
	if c.activity != nil {
		c.perTrigger.collect(ch, c.activity)
	}
	c.workerStates.collect(ch)
}

// ageSeconds is the seconds from at to now, 0 without at; a clock stepped
// back reads 0, never a negative age.
func ageSeconds(now int64, at *int64) float64 {
	if at == nil {
		return 0
	}
	return float64(max(now-*at, 0)) / 1000
}

// refresh reads the store once; a failed read leaves its metrics out
// rather than repeating stale values as if they were current.
func (c *stateCollector) refresh() {
	c.readAt = time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	c.snap, c.workers, c.unplaced, c.activity = nil, nil, nil, nil
	if c.cfg.Monitor != nil {
		snap, err := c.cfg.Monitor(ctx, c.cfg.Limit)
		if err != nil {
			c.failed++
		} else {
			c.snap = &snap
		}
	}
	if c.cfg.Workers != nil {
		sessions, free, err := c.cfg.Workers(ctx)
		if err != nil {
			c.failed++
		} else {
			c.workers = &[2]int{sessions, free}
		}
	}
	if c.cfg.Unplaceable != nil {
		n, err := c.cfg.Unplaceable(ctx, c.cfg.Limit)
		if err != nil {
			c.failed++
		} else {
			c.unplaced = &n
		}
	}
	if c.perTrigger != nil {
		a, err := c.cfg.TriggerActivity(ctx, c.perTrigger.limit)
		if err != nil {
			c.failed++
		} else {
			c.activity = &a
			c.perTrigger.noteCap(&a)
		}
	}
	if c.cfg.WorkerStates != nil && !c.workerStates.refresh(ctx, c.cfg.WorkerStates, c.cfg.Limit) {
		c.failed++
	}
}
