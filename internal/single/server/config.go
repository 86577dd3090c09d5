package server

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/loop"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/scripts"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/single/executor"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// Profile selects a set of defaults.
type Profile string

const (
	// Standalone is the default single-node profile.
	Standalone Profile = "standalone"
	// Edge is the small-device profile: smaller pages, slower cadence,
	// one command at a time, a smaller database cache.
	Edge Profile = "edge"
)

// Defaults per profile (docs/architecture.md, "Profiles").
const (
	StandalonePageSize    = 256
	StandaloneCadence     = time.Second
	StandaloneGrace       = 5 * time.Minute
	StandaloneStopTimeout = 10 * time.Second
	EdgePageSize          = 4
	EdgeCadence           = 5 * time.Second
	EdgeGrace             = 30 * time.Second
	EdgeStopTimeout       = 5 * time.Second
	EdgeConcurrency       = 1
	DefaultLogCapBytes    = 1 << 20
	// StandaloneWatch and EdgeWatch are how often the server looks whether
	// another process committed to its file (a trigger applied, enabled or
	// resumed, a Run admitted with `ql triggers run`), which its own rounds
	// would learn only at their cadence. A look is one short read
	// transaction of a few microseconds, so standalone looks as often as a
	// loop may run; the edge profile looks once a second, keeping a
	// router's idle wake-ups few while a trigger applied a second or more
	// ahead of its first occurrence is still admitted at its instant.
	StandaloneWatch = loop.MinCadence
	EdgeWatch       = time.Second
	// edgeCacheKiB keeps the edge profile's page caches within its memory
	// budget; standalone uses the store's default.
	edgeCacheKiB  = 256
	edgeReadConns = 1
	// edgeWALBytes bounds the edge profile's -wal file at 1 MiB, four
	// times less than standalone's, for a data directory on a tmpfs or a
	// card of a few MiB (docs/operations.md, "The database's -wal file"):
	// 256 pages of a database made with 4 KiB pages, 1,024 of one made
	// with edgePageBytes, so that a checkpoint comes after as many Runs
	// whatever the page size, and copies a page rewritten by each of them
	// once.
	edgeWALBytes = 1 << 20
	// edgePageBytes is the page size of a database the edge server
	// creates: each commit writes every page it changed whole, a dozen
	// or so, four commits a Run, so 1 KiB pages write about a third of
	// what 4 KiB pages do on a device whose flash wears out (BENCHMARKS.md,
	// "Disk writes per Run").
	edgePageBytes  = 1024
	maxGrace       = 24 * time.Hour
	defaultDataDir = "."
)

// Config of a single-node server. Zero values mean "the profile's default".
type Config struct {
	// Profile is standalone (default) or edge.
	Profile Profile
	// DataDir holds the database, logs, secrets and owner locks
	// (default: the working directory).
	DataDir string
	// ScriptsDir is the scripts folder the console's Scripts page keeps
	// and every command finds in $QL_SCRIPTS_DIR (default: scripts in
	// DataDir), created at start when missing.
	ScriptsDir string
	// PageSize is how many schedule rows one round takes (1–256).
	PageSize int
	// Cadence is the wait between rounds that found no more work
	// (250ms–1h).
	Cadence time.Duration
	// Grace is how late an occurrence may be before a skip policy drops
	// it (0–24h). GraceSet says it was given: 0 then means no grace at
	// all, not the profile's default.
	Grace    time.Duration
	GraceSet bool
	// StopTimeout bounds Stop (100ms–30s).
	StopTimeout time.Duration
	// StopSignals, when set, are the signals that began the stop (the
	// process's own): each one received again while it drains is
	// answered with a line saying what the stop still waits for.
	StopSignals []os.Signal
	// Concurrency is how many commands run at once (1–256; default the
	// CPU count, edge 1).
	Concurrency int
	// LogCapBytes caps one attempt's captured output (1 KiB–1 GiB,
	// default 1 MiB).
	LogCapBytes int64
	// HTTPAddr, when set, serves the API under /api/v1 and the probes
	// /livez and /readyz (":0" picks a port).
	HTTPAddr string
	// TLS is the API listener's transport: a certificate, or plain HTTP
	// allowed on an address other hosts can reach.
	TLS httpapi.TLSSettings
	// AllowedHosts are extra Host header names the API answers to.
	AllowedHosts []string
	// TrustedProxies are the reverse proxies (addresses or CIDR prefixes)
	// whose X-Forwarded-For names the client; none by default.
	TrustedProxies []string
	// RequestTimeout bounds the store calls of one API request or console
	// page (zero, and the most: httpserve.MaxHandlerTime, under the
	// listener's write timeout); one out of time is answered 504.
	RequestTimeout time.Duration
	// MetricsAddr, when set, serves Prometheus metrics at /metrics on a
	// listener of its own (":0" picks a port).
	MetricsAddr string
	// MetricsPerTrigger is the most triggers /metrics gives series of
	// their own (0–metrics.MaxPerTrigger; 0, the default, is off).
	MetricsPerTrigger int
	// NowMs is the scheduler's clock (default: the wall clock).
	NowMs func() int64
	// ClockWait is how long the scheduler and retention are held while
	// NowMs reads more than ClockBehindTolerance earlier than the newest
	// time the database recorded, before the clock is taken as right
	// (0–24h; default DefaultClockWait). ClockWaitSet says it was given:
	// 0 then means no hold at all, not the default.
	ClockWait    time.Duration
	ClockWaitSet bool
	// AfterRestore is what the first start on a backup's copy does with
	// the occurrences the copy says were missed (default CatchUpMissed).
	AfterRestore AfterRestore
	// IntegrityCheck says when the start reads the whole database file
	// (default CheckAfterUncleanStop).
	IntegrityCheck IntegrityCheck
	// Uptime is the monotonic clock ClockWait is measured by, which a
	// wall clock set back or forward does not move (default: the time
	// since the server's start).
	Uptime func() time.Duration
	// Logger is the low-sensitivity diagnostic sink (default: text on
	// stderr). It receives ids, states and error codes — never command
	// environments, secret values or output.
	Logger *slog.Logger
	// OnRound, if set, observes every scheduler round (an empty summary
	// for one held while the clock reads behind the database).
	OnRound func(schedule.Summary)
	// BaseEnv starts every command's environment (default: PATH, HOME,
	// LANG and TZ of this process, when set).
	BaseEnv []string
	// RunAs is the account of commands whose task names none (default:
	// this server's own). Switching accounts needs root or CAP_SETUID and
	// CAP_SETGID, which Start checks.
	RunAs task.RunAs
	// NotifyBackoff is the wait after a notification's first failed
	// delivery, doubled after each further one (100ms–1h, default 5s).
	NotifyBackoff time.Duration
	// NotifyMaxAttempts is how many deliveries a notification gets before
	// it is dead (1–100, default 8).
	NotifyMaxAttempts int
	// ConsoleURL is the console's address as people reach it; Run
	// notifications link to their Run's page there ("" no link).
	ConsoleURL string
	// Retention says what the server deletes, and when; the zero value
	// means the profile's default (Retention.Set false). Policy.Off keeps
	// every Run, log and notification; expired console sessions still go.
	Retention RetentionConfig
	// BeforeOpen, if set, runs once the data directory is this server's,
	// before the server opens its database: `serve --example` applies the
	// sample there, so a start refused because another server uses the
	// directory has changed nothing in it.
	BeforeOpen func(context.Context) error
	// TakeBack clears the database's handover mark (`serve --take-back`):
	// a database handed over to another (`export --with-state`) is
	// refused otherwise, as the target runs its triggers.
	TakeBack bool
	// Binary names the program that serves (default ql) in the commands
	// its log lines tell the operator to run: the edge binary's operator
	// has no ql.
	Binary string
	// Version and Commit are the serving binary's (`ql version`), which
	// the ready line (serve.ready) carries: after a binary is replaced,
	// its log says which one started.
	Version, Commit string
}

// RetentionConfig is the retention loop's setting.
type RetentionConfig struct {
	// Set says Policy was given; otherwise the profile's default applies.
	Set    bool
	Policy retention.Policy
	// Cadence is the wait between passes (default retention.DefaultCadence).
	Cadence time.Duration
	// Options bound each pass.
	Options retention.Options
}

// WithDefaults fills unset fields from the profile's defaults.
func (c Config) WithDefaults() Config {
	if c.Profile == "" {
		c.Profile = Standalone
	}
	edge := c.Profile == Edge
	pick := func(v, standalone, edgeV time.Duration) time.Duration {
		switch {
		case v != 0:
			return v
		case edge:
			return edgeV
		}
		return standalone
	}
	if c.DataDir == "" {
		c.DataDir = defaultDataDir
	}
	if c.ScriptsDir == "" {
		c.ScriptsDir = LayoutOf(c.DataDir).Scripts
	}
	if c.Binary == "" {
		c.Binary = "ql"
	}
	if c.PageSize == 0 {
		c.PageSize = StandalonePageSize
		if edge {
			c.PageSize = EdgePageSize
		}
	}
	c.Cadence = pick(c.Cadence, StandaloneCadence, EdgeCadence)
	if !c.GraceSet {
		c.Grace = pick(c.Grace, StandaloneGrace, EdgeGrace)
	}
	c.StopTimeout = pick(c.StopTimeout, StandaloneStopTimeout, EdgeStopTimeout)
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency(c.Profile)
	}
	if c.Concurrency == 0 {
		c.Concurrency = runtime.NumCPU()
	}
	if c.LogCapBytes == 0 {
		c.LogCapBytes = DefaultLogCapBytes
	}
	if !c.Retention.Set {
		c.Retention.Set, c.Retention.Policy = true, RetentionDefaults(c.Profile)
	}
	if c.Retention.Cadence == 0 {
		c.Retention.Cadence = retention.DefaultCadence
	}
	if c.NowMs == nil {
		c.NowMs = func() int64 { return time.Now().UnixMilli() }
	}
	if c.AfterRestore == "" {
		c.AfterRestore = CatchUpMissed
	}
	if c.IntegrityCheck == "" {
		c.IntegrityCheck = CheckAfterUncleanStop
	}
	if !c.ClockWaitSet && c.ClockWait == 0 {
		c.ClockWait = DefaultClockWait
	}
	if c.Uptime == nil {
		started := time.Now()
		c.Uptime = func() time.Duration { return time.Since(started) }
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if c.BaseEnv == nil {
		c.BaseEnv = process.DefaultBaseEnv()
	}
	return c
}

// Bounds are the ranges Validate holds the settings ql serve gives to
// whose range leaves 0 out, by flag name, in the words its refusal states
// them: serve refuses a 0 given to one of them (which the config reads as
// left out) in the same words.
var Bounds = map[string]string{
	"page-size":     fmt.Sprintf("1–%d", schedule.MaxPageSize),
	"cadence":       validate.Duration(loop.MinCadence) + "–" + validate.Duration(loop.MaxCadence),
	"stop-timeout":  validate.Duration(loop.MinStopTimeout) + "–" + validate.Duration(loop.MaxStopTimeout),
	"concurrency":   fmt.Sprintf("1–%d", executor.MaxConcurrency),
	"log-max-bytes": retention.FormatBytes(executor.MinLogCapBytes) + "–" + retention.FormatBytes(executor.MaxLogCapBytes),
}

// Validate names the setting and its allowed range.
func (c Config) Validate() error {
	invalid := func(format string, args ...any) error { return qlerror.New(qlerror.Invalid, format, args...) }
	switch {
	case c.Profile != Standalone && c.Profile != Edge:
		return invalid("--profile %q is not one of standalone, edge", c.Profile)
	case c.PageSize < 1 || c.PageSize > schedule.MaxPageSize:
		return invalid("--page-size %d is outside %s", c.PageSize, Bounds["page-size"])
	case c.Cadence < loop.MinCadence || c.Cadence > loop.MaxCadence:
		return invalid("--cadence %s is outside %s", validate.Duration(c.Cadence), Bounds["cadence"])
	case c.Grace < 0 || c.Grace > maxGrace:
		return invalid("--misfire-grace %s is outside 0s–%s", validate.Duration(c.Grace), validate.Duration(maxGrace))
	case c.AfterRestore != "" && c.AfterRestore != CatchUpMissed && c.AfterRestore != SkipMissed:
		return invalid("--after-restore %q is not %s or %s", c.AfterRestore, CatchUpMissed, SkipMissed)
	case c.IntegrityCheck != "" && c.IntegrityCheck != CheckAfterUncleanStop && c.IntegrityCheck != CheckAlways:
		return invalid("--integrity-check %q is not %s or %s", c.IntegrityCheck, CheckAfterUncleanStop, CheckAlways)
	case c.ClockWait < 0 || c.ClockWait > maxClockWait:
		return invalid("--clock-wait %s is outside 0s–%s", validate.Duration(c.ClockWait), validate.Duration(maxClockWait))
	case c.StopTimeout < loop.MinStopTimeout || c.StopTimeout > loop.MaxStopTimeout:
		return invalid("--stop-timeout %s is outside %s", validate.Duration(c.StopTimeout), Bounds["stop-timeout"])
	case c.Concurrency < 1 || c.Concurrency > executor.MaxConcurrency:
		return invalid("--concurrency %d is outside %s", c.Concurrency, Bounds["concurrency"])
	case c.LogCapBytes < executor.MinLogCapBytes || c.LogCapBytes > executor.MaxLogCapBytes:
		return invalid("--log-max-bytes %s is outside %s", retention.FormatBytes(c.LogCapBytes), Bounds["log-max-bytes"])
	case c.Retention.Cadence < loop.MinCadence || c.Retention.Cadence > loop.MaxCadence:
		return invalid("retention cadence: %s is outside %s–%s", validate.Duration(c.Retention.Cadence), validate.Duration(loop.MinCadence), validate.Duration(loop.MaxCadence))
	case !c.RunAs.IsZero():
		return c.RunAs.Validate("--run-as")
	}
	if err := notify.CheckSettings(c.NotifyBackoff, c.NotifyMaxAttempts); err != nil {
		return qlerror.New(qlerror.Invalid, "%s", err)
	}
	if err := metrics.CheckPerTrigger(c.MetricsPerTrigger); err != nil {
		return qlerror.New(qlerror.Invalid, "%s", err)
	}
	if err := notify.CheckConsoleURL(c.ConsoleURL); err != nil {
		return qlerror.New(qlerror.Invalid, "%s", err)
	}
	return nil
}

// lookPeriod is how often the server's watch looks: whether its database
// path still names the file it opened, on every profile and cadence, and
// whether other processes committed, when watchPeriod is not 0.
func (c Config) lookPeriod() time.Duration {
	period := StandaloneWatch
	if c.Profile == Edge {
		period = EdgeWatch
	}
	return min(period, c.Cadence)
}

// watchPeriod is how often the server looks for other processes'
// commits; 0 means never, when the cadence is as short: the rounds then
// look often enough by themselves.
func (c Config) watchPeriod() time.Duration {
	if period := c.lookPeriod(); c.Cadence > period {
		return period
	}
	return 0
}

// DefaultConcurrency is how many commands the profile runs at once when
// Concurrency is unset; 0 is the CPU count.
func DefaultConcurrency(p Profile) int {
	if p == Edge {
		return EdgeConcurrency
	}
	return 0
}

// RetentionDefaults is a profile's retention policy.
func RetentionDefaults(p Profile) retention.Policy {
	if p == Edge {
		return retention.EdgeDefaults
	}
	return retention.StandaloneDefaults
}

// Layout is where a data directory keeps its files. Names carry a
// "qinglong" prefix so the default data directory (the working directory)
// stays recognisable.
type Layout struct {
	DB      string // the SQLite file
	Logs    string // <attemptId>.log per attempt
	Secrets string // JSON object name → value, mode 0600
	Owners  string // one lock file per live executor
	Lock    string // locked by the server serving the directory; holds its pid
	// SetupCode holds the first owner's setup code while no account
	// exists, mode 0600 (setupcode.go).
	SetupCode string
	// Scripts is the default scripts folder (--scripts-dir moves it),
	// which a backup copies when it is there.
	Scripts string
}

// SetupCodeFile is the name of the setup code's file in the data
// directory.
const SetupCodeFile = account.SetupCodeFile

// LayoutOf is the layout of dataDir.
func LayoutOf(dataDir string) Layout {
	return Layout{
		DB:        filepath.Join(dataDir, "qinglong.db"),
		Logs:      filepath.Join(dataDir, sqlitestore.DefaultLogDirName),
		Secrets:   filepath.Join(dataDir, "qinglong-secrets.json"),
		Owners:    filepath.Join(dataDir, "qinglong-owners"),
		Lock:      filepath.Join(dataDir, "qinglong-server.lock"),
		SetupCode: filepath.Join(dataDir, SetupCodeFile),
		Scripts:   filepath.Join(dataDir, scripts.DirName),
	}
}

// LayoutOfDB is the layout of the data directory holding the database
// file dbPath.
func LayoutOfDB(dbPath string) Layout {
	l := LayoutOf(filepath.Dir(dbPath))
	l.DB = dbPath
	return l
}
