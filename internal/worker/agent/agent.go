// Package agent is the cluster worker: it registers with any replica's
// worker ingress, heartbeats its session, pulls grants when it has free
// slots, and runs each granted attempt as a local process (through
// internal/core/process, so a command sees what it would see under the
// local executor), reporting start, renewals, output and completion.
//
// Invariants:
//   - Local recovery runs before registering: what the journal holds as
//     launching or running is never spawned again (see journal.Recover); a
//     recorded process group is ended only when it is provably the
//     command's (process.EndOrphan checks its start time). Once
//     registered, an attempt nothing of whose command runs any more is
//     reported lost under its own lease (see reportAbandoned), and a grant
//     the earlier process never launched is given back under its own lease
//     (see giveBackLeft).
//   - Each pull is journaled (offer id, token) before it is sent, and each
//     grant before its start ACK; `launching` is journaled before the spawn.
//   - One goroutine per attempt sends every lease request of that attempt
//     (start, renew, log, complete), so each carries the current lease
//     version and log chunks go out in offset order.
//   - The worker keeps its own copy of each lease, counted from when the
//     request that granted or renewed it was sent (never from the reply,
//     so it can only end early; for a pull, the send that got the reply,
//     see Client.Pull). Before that copy ends it kills the
//     command's process group and reports nothing more for the attempt:
//     the replica's sweep declares it lost, and a late report would be
//     refused anyway.
//   - Secrets come only from the worker's own secrets file; values reach
//     only the command's environment and are masked in the output sent.
//     Logs never hold the credential, tokens, environments or secrets.
package agent

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	mathrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/scripts"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/worker/journal"
)

// Defaults and bounds of Config.
const (
	DefaultConcurrency = 4
	DefaultStopTimeout = 30 * time.Second
	// MinStopTimeout and MaxStopTimeout bound the drain after a signal.
	// Unlike a replica's drain (at most 30 s: its rounds are short), a
	// worker's lets running commands finish, which a nightly batch job
	// may take hours to do, so the bound is a day: longer is a unit slip
	// (30000m for 30000ms), and a wait without any limit is what `ql
	// workers drain` gives. Below a second no command is let finish: the
	// drain would be a stop that reports every running attempt lost.
	MinStopTimeout = time.Second
	MaxStopTimeout = 24 * time.Hour
	// registerRetry is the first pause between two tries to register
	// that failed in a way that may pass (no replica reachable yet, a
	// session another replica still holds, a rate limit); each later
	// pause is twice as long, up to registerRetryMax, jittered so that
	// the workers of a fleet do not come back in step after an outage. A
	// worker never gives up on such a failure: its replicas may be
	// started after it.
	registerRetry    = 2 * time.Second
	registerRetryMax = 30 * time.Second
	// registerRepeat is how often a worker that still cannot register
	// says so again after its first failure: a wrong --server is said at
	// once and then once a minute with the count, not at every try.
	registerRepeat = time.Minute
	// drainNoteEvery is how often a stopping or drained worker says which
	// commands it still waits for: a stop timeout may be hours, and a
	// drain waits without limit, so silence would look like a hang.
	drainNoteEvery = time.Minute
	// registerFirstTimeout bounds the first registration, retries
	// included; each later one may take twice as long as the one before,
	// up to registerTimeout. A short first bound is what tells the
	// operator within seconds that --server cannot be reached.
	registerFirstTimeout = 3 * time.Second
	registerTimeout      = 15 * time.Second
	// endTimeout bounds ending the session at a clean stop, retries
	// included: an unreachable replica holds the exit no longer than that.
	endTimeout = 5 * time.Second
	// giveBackTimeout bounds giving a grant back, retries included: it is
	// a courtesy, and the grant's lease gives it back anyway.
	giveBackTimeout = 5 * time.Second
	// reportTimeout bounds reporting, once registered, the attempts an
	// earlier process left running: what is not reported by then waits
	// for its lease, as before the report existed.
	reportTimeout = 10 * time.Second
	// journalTrimEvery is how often old journal records are removed.
	journalTrimEvery = time.Hour
	// pullRetry paces pulling after a refused or failed pull.
	pullRetry = time.Second
	// watchRetry is how long a worker that stays on a server older than
	// the watch waits before it tries a watch there again: during a
	// rolling upgrade the replicas behind one address (a load balancer)
	// become newer without the worker moving, and a retry costs that
	// older replica one refused request.
	watchRetry = 5 * time.Minute
)

// Config of a worker.
type Config struct {
	// Server is the worker ingress URL of any replica, or several
	// separated by commas (tried in turn when one fails).
	Server string
	// Credential is the bearer credential (never logged).
	Credential string
	// DataDir holds the journal and its lock.
	DataDir string
	// ScriptsDir is the folder every command finds in $QL_SCRIPTS_DIR, as
	// on a single node (default: scripts in DataDir), created at start.
	ScriptsDir string
	// Concurrency is how many commands run at once (1–MaxCapacity).
	Concurrency int
	// Labels are added to the credential's own.
	Labels map[string]string
	// RunAs is the account of commands whose task names none (default:
	// the worker's own), as a standalone server's --run-as. Switching
	// accounts needs root or CAP_SETUID and CAP_SETGID, which Run checks.
	RunAs task.RunAs
	// RootCAs are the certificate authorities trusted for the replicas'
	// worker ingress; nil: the system's.
	RootCAs *x509.CertPool
	// SecretsFile is the worker's own secrets file; empty: none, and a
	// command naming a secret fails to start.
	SecretsFile string
	// SecretsCommand is the command that edits the secrets file on this
	// worker's host, as the binary running it spells it: `ql-worker
	// secrets` (the default), or `ql secrets` under `ql worker`.
	SecretsCommand string
	// StopTimeout bounds a drain: running commands get this long to
	// finish after SIGINT/SIGTERM/SIGHUP, then are stopped.
	StopTimeout time.Duration
	// Signals, when set, delivers every SIGINT, SIGTERM and SIGHUP the
	// process gets (the first also ends Run's context): a second one ends
	// the stop timeout at once, so an operator who asks twice (Ctrl-C
	// again, a second kill) is not kept waiting up to --stop-timeout,
	// which may be hours, nor driven to SIGKILL, which would leave the
	// commands running unwatched.
	Signals <-chan os.Signal
	// Version is reported when registering.
	Version string
	// BaseEnv starts every command's environment (default:
	// process.DefaultBaseEnv).
	BaseEnv []string
	// Logger receives structured logs (default: slog.Default()).
	Logger *slog.Logger
	// PullWait is how long a pull may wait on the replica (default and
	// maximum workerproto.MaxPullWait).
	PullWait time.Duration
	// watchRetry is how long a refused watch waits before it is tried
	// again on the same server (default watchRetry): a test shortens it.
	watchRetry time.Duration
	// unreachableRepeat is how often a worker that gets no answer says so
	// again (default unreachableRepeat): a test shortens it.
	unreachableRepeat time.Duration
	// logFlushesPerSecond bounds the output flushes of all commands
	// together (default logFlushesPerSecond): a test lowers it.
	logFlushesPerSecond int
	// logFlushEvery is the least time between two flushes of a command's
	// output (default logFlushEvery): a test changes it.
	logFlushEvery time.Duration
	// registerTry bounds the first try to register (default
	// registerFirstTimeout), registerRetry is the first pause after a
	// failed try (default registerRetry) and registerRepeat how often a
	// failure to register is said again (default registerRepeat): a test
	// shortens them.
	registerTry, registerRetry, registerRepeat time.Duration
	// drainNoteEvery is how often a draining worker says what it waits
	// for (default drainNoteEvery): a test shortens it.
	drainNoteEvery time.Duration
	// heartbeatEvery is how often the session is heartbeaten (default
	// workerproto.HeartbeatEvery): a test shortens it.
	heartbeatEvery time.Duration
	// wrapTransport, when set, wraps the transport every request is sent
	// through: a test reads there the time each send is given.
	wrapTransport func(http.RoundTripper) http.RoundTripper
}

// Validate names the setting and its allowed range.
func (c Config) Validate() error {
	switch {
	case c.Server == "":
		return errors.New("--server is required: the worker ingress URL of a replica, e.g. https://replica.example:8081")
	case c.Credential == "":
		return errors.New("--credential-file is required: the file holding the credential `ql workers create` printed")
	case c.DataDir == "":
		return errors.New("--data-dir is required")
	case c.Concurrency < 1 || c.Concurrency > workerproto.MaxCapacity:
		return fmt.Errorf("--concurrency %d is outside 1–%d", c.Concurrency, workerproto.MaxCapacity)
	case c.PullWait < 0 || c.PullWait > workerproto.MaxPullWait:
		return fmt.Errorf("pull wait %s is outside 0–%s", c.PullWait, workerproto.MaxPullWait)
	case !c.RunAs.IsZero():
		if err := c.RunAs.Validate("--run-as"); err != nil {
			return err
		}
	}
	if err := CheckStopTimeout(c.StopTimeout, validate.Duration(c.StopTimeout)); err != nil {
		return err
	}
	_, err := parseServers(c.Server)
	return err
}

// CheckStopTimeout refuses a stop timeout d outside MinStopTimeout–
// MaxStopTimeout, naming it as written.
func CheckStopTimeout(d time.Duration, written string) error {
	if d >= MinStopTimeout && d <= MaxStopTimeout {
		return nil
	}
	return fmt.Errorf("--stop-timeout %s is outside %s–%s: it is how long running commands may finish after SIGINT/SIGTERM/SIGHUP before they are stopped; "+
		"give a value within it, or drain the worker with `ql workers drain NAME`, which lets its commands finish however long they take",
		written, validate.Duration(MinStopTimeout), validate.Duration(MaxStopTimeout))
}

// Summary is what a worker did, printed when it stops.
type Summary struct {
	// Abandoned counts attempts an earlier process of this worker left
	// launching or running; OrphansEnded those whose process group was
	// still running and was ended; Reported those the replica ended on
	// this worker's report instead of at their lease's end.
	Abandoned, OrphansEnded, Reported int
	// GivenBack counts grants an earlier process of this worker left
	// unstarted that the replica queued again on this worker's give-back.
	GivenBack int
	// Completed counts attempts reported complete; Stopped those ended by
	// a stop reply, a timeout or the drain.
	Completed, Stopped int
	// LeaseLost counts attempts killed because their lease could not be
	// renewed in time; Terminal those the replica declared over.
	LeaseLost, Terminal int
	// Killed counts attempts ended at once, with nothing more reported,
	// because a newer session replaced this worker or its credential was
	// refused.
	Killed int
	// Paced counts the times the worker took fewer commands than its
	// capacity because the replicas answered late (see pacer).
	Paced int
}

// Errors that end a worker. None passes by starting the worker again as
// it is, so each has the exit code that says so (docs/operations.md, Exit
// codes), which the shipped systemd unit does not restart on: restarted,
// a replaced worker would replace the other process in turn, for ever,
// and a refused credential would count against its address's failed
// authentications every few seconds until its neighbours are throttled.
var (
	// ErrReplaced: a newer session of this worker's credential exists
	// (exit 4: another process holds the credential).
	ErrReplaced = qlerror.New(qlerror.Conflict, "a newer worker session with the same credential replaced this one; run one worker per credential")
	// ErrUnauthenticated: the credential was refused (exit 5).
	ErrUnauthenticated = qlerror.New(qlerror.Unauthenticated, "the replica refused the credential (unknown, revoked, or replaced by a rotation whose --keep-old passed); ask an admin for a new one (`ql workers rotate NAME`; for a revoked worker `ql workers create` under another name) and put it in --credential-file")
)

// drainedError is what a worker started while an admin had it drained
// returns (exit 4): it takes no work until it is resumed. It names the
// worker, so the command to run can be copied as it is.
func drainedError(name string) error {
	return qlerror.New(qlerror.Conflict, "worker %s is drained (`ql workers drain`): it takes no work until an admin runs `ql workers resume %s`; start it again after that", name, name)
}

// worker is one running worker process.
type worker struct {
	cfg     Config
	log     *slog.Logger
	journal *journal.Journal
	client  *Client
	secrets process.Secrets

	// reqCtx bounds every request; it ends only when the worker gives up
	// reporting altogether (replaced, credential refused).
	reqCtx    context.Context
	reqCancel context.CancelFunc

	slots    chan struct{}
	attempts sync.WaitGroup
	// pace holds the slots above the worker's share while the replicas
	// answer late.
	pace *pacer

	mu      sync.Mutex
	session string
	running map[string]*attempt
	summary Summary
	// granted is the capacity the replica granted; logCap its per-attempt
	// log cap; runLease the run lease's length.
	granted  int
	logCap   int64
	runLease time.Duration
	// draining closes when the worker stops pulling: a signal, a
	// draining session, or a fatal error (fatal then says which, even
	// when it comes after the drain began: a worker revoked while it
	// drains exits as revoked).
	draining     chan struct{}
	drainingOnce sync.Once
	fatal        error
	// stopBegun is when the worker stopped pulling (UnixNano; 0 before):
	// a journal write refused for now is tried journalStopGrace past it.
	stopBegun atomic.Int64
	// outage is the spell during which the journal refuses writes.
	outage journalOutage
	// stopSignal names the signal that stopped the worker ("SIGTERM"),
	// "" when none did or it is not known; again is closed at a second
	// signal, and hurried says the drain ended on it, not on its timeout.
	stopSignal string
	again      chan struct{}
	hurried    bool
	// idle is signalled whenever an attempt ends.
	idle chan struct{}
	// full is signalled when an attempt takes the last free slot: the
	// watch goroutine then keeps a watch waiting.
	full chan struct{}
	// reregister asks the heartbeat goroutine, the only one that
	// registers after the start, for a new session.
	reregister chan struct{}
	// expired is the last session this worker learnt had expired: its own
	// registration again replaces it, so replaced said of it (by a reply
	// sent before the new session's id arrived) is no news.
	expired string
	// giveBackUnknown: a replica answered a give-back not found (older
	// than the request); said once.
	giveBackUnknown sync.Once
	// replacedOnce: the watch, a pull and a renewal may all hear the
	// replacement; it is logged once.
	replacedOnce sync.Once
	// revokedOnce: so may the refusal of the credential, and every
	// running attempt's request.
	revokedOnce sync.Once
	// watchRefusedBy are the servers (URLs) that refused a watch, each
	// said once; touched by the watch goroutine only.
	watchRefusedBy map[string]bool
	// drainWatchRefusedBy are the servers (URLs) that refused a draining
	// watch, each said once; touched by the draining watch's goroutine
	// only.
	drainWatchRefusedBy map[string]bool
	// abandoned are the attempts an earlier process left running whose
	// command is gone: reported to the replica once registered.
	abandoned []journal.Attempt
	// left are the grants an earlier process journaled and never
	// launched: given back once registered.
	left []journal.Attempt
	// drainedAtStart: the first registration opened a draining session
	// (the worker was drained before this process started).
	drainedAtStart bool
	// readsUnkept: an older replica took the current session's
	// registration without the grant fields this worker reads, so its
	// heartbeats name them until an upgraded replica keeps them.
	readsUnkept bool
	// name is the worker's name, as the registration says it: the
	// credential's, which the commands an operator is told to run take.
	name string
}

// Run runs a worker until ctx ends (SIGINT/SIGTERM/SIGHUP: drain, then return
// nil), its session is drained by an operator (return nil once idle;
// drainedError at once when it was drained before it started), or it cannot
// go on (ErrReplaced, ErrUnauthenticated, a journal failure).
func Run(ctx context.Context, cfg Config) (Summary, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.watchRetry = cmp.Or(cfg.watchRetry, watchRetry)
	cfg.unreachableRepeat = cmp.Or(cfg.unreachableRepeat, unreachableRepeat)
	cfg.logFlushesPerSecond = cmp.Or(cfg.logFlushesPerSecond, logFlushesPerSecond)
	cfg.logFlushEvery = cmp.Or(cfg.logFlushEvery, logFlushEvery)
	cfg.registerTry = cmp.Or(cfg.registerTry, registerFirstTimeout)
	cfg.registerRetry = cmp.Or(cfg.registerRetry, registerRetry)
	cfg.registerRepeat = cmp.Or(cfg.registerRepeat, registerRepeat)
	cfg.drainNoteEvery = cmp.Or(cfg.drainNoteEvery, drainNoteEvery)
	cfg.heartbeatEvery = cmp.Or(cfg.heartbeatEvery, workerproto.HeartbeatEvery)
	cfg.SecretsCommand = cmp.Or(cfg.SecretsCommand, "ql-worker secrets")
	if cfg.BaseEnv == nil {
		cfg.BaseEnv = process.DefaultBaseEnv()
	}
	if cfg.PullWait == 0 {
		cfg.PullWait = workerproto.MaxPullWait
	}
	if err := cfg.Validate(); err != nil {
		return Summary{}, err
	}
	// Before anything is opened, as a server's start: an account that
	// does not exist, or one this process cannot switch to, would fail
	// every command it took.
	if !cfg.RunAs.IsZero() {
		if err := process.CheckRunAs(cfg.RunAs); err != nil {
			return Summary{}, err
		}
	}
	client, err := NewClient(cfg.Server, cfg.Credential, cfg.Concurrency, cfg.RootCAs)
	if err != nil {
		return Summary{}, err
	}
	defer client.Close()
	if cfg.wrapTransport != nil {
		client.http.Transport = cfg.wrapTransport(client.http.Transport)
	}
	client.reach = newReachability(cfg.Logger, cfg.unreachableRepeat)
	j, err := journal.Open(context.Background(), cfg.DataDir)
	if err != nil {
		return Summary{}, err
	}
	defer func() {
		if err := j.Close(); err != nil {
			cfg.Logger.Error("could not close the worker journal", "code", "journal_close_failed", "error", err.Error())
		}
	}()
	// After the journal made the data directory with its own mode, which
	// MkdirAll would otherwise give the scripts folder's.
	cfg.ScriptsDir = absDir(cmp.Or(cfg.ScriptsDir, filepath.Join(cfg.DataDir, scripts.DirName)))
	if err := (&scripts.Folder{Dir: cfg.ScriptsDir}).Ensure(); err != nil {
		return Summary{}, fmt.Errorf("create the scripts folder %s: %w; give --scripts-dir a folder this user may create, or create it and let this user write it", cfg.ScriptsDir, err)
	}
	cfg.BaseEnv = append(slices.Clip(cfg.BaseEnv), scripts.EnvVar+"="+cfg.ScriptsDir)
	sayIfDataDirShared(cfg.Logger, absDir(cfg.DataDir))
	warnIfTasksNotIsolated(cfg.Logger, absDir(cfg.DataDir), cfg.RunAs)
	w := &worker{
		cfg: cfg, log: cfg.Logger, journal: j, client: client,
		secrets:  secretsOf(cfg),
		running:  map[string]*attempt{},
		draining: make(chan struct{}),
		idle:     make(chan struct{}, 1),
		full:     make(chan struct{}, 1),

		reregister:          make(chan struct{}, 1),
		watchRefusedBy:      map[string]bool{},
		drainWatchRefusedBy: map[string]bool{},
		again:               make(chan struct{}),
	}
	if cfg.Signals != nil {
		done := make(chan struct{})
		defer close(done)
		go w.countSignals(cfg.Signals, done)
	}
	w.reqCtx, w.reqCancel = context.WithCancel(context.Background())
	defer w.reqCancel()
	// The dead descendants this worker adopted are collected as long as it
	// runs, until after its last command ended.
	reaperCtx, stopReaper := context.WithCancel(context.Background())
	reaped := make(chan struct{})
	go func() {
		defer close(reaped)
		process.ReapAdopted(reaperCtx)
	}()
	defer func() {
		stopReaper()
		<-reaped
	}()
	if err := w.recoverLocal(); err != nil {
		return w.summary, err
	}
	w.log.Info("worker starting", "code", "worker_starting", "server", client.serverList(), "data_dir", absDir(cfg.DataDir),
		"scripts_dir", cfg.ScriptsDir, "concurrency", cfg.Concurrency, "labels", task.FormatWorkerLabels(cfg.Labels), "secrets_file", cfg.SecretsFile)
	if err := w.register(ctx); err != nil {
		// Every stop ends with worker_stopped, this one too: an operator
		// reading the log of a worker stopped while no replica answered
		// sees that it stopped, and that it had taken no work.
		attrs := []any{"code", "worker_stopped", "registered", false}
		if sig := signalName(context.Cause(ctx)); sig != "" {
			attrs = append(attrs, "signal", sig)
		}
		w.log.Info("worker stopped before it registered: it took no work", attrs...)
		if ctx.Err() != nil {
			return w.summary, nil
		}
		return w.summary, err
	}
	w.reportAbandoned()
	w.giveBackLeft()
	if w.drainedAtStart {
		// A worker restarted by its supervisor while drained would
		// otherwise exit 0 and, under a supervisor that restarts whatever
		// the exit (systemd's Restart=always, a Kubernetes pod), start and
		// exit again every few seconds.
		w.log.Warn("this worker is drained: it takes no work until an admin runs `ql workers resume "+w.workerName()+"`, then start it again; exiting 4", "code", "worker_drained", "worker", w.workerName())
		w.endSession()
		w.log.Info("worker stopped: it is drained and took no work", "code", "worker_stopped", "registered", true)
		return w.summary, drainedError(w.workerName())
	}
	w.slots = make(chan struct{}, w.capacity())
	w.pace = newPacer(w.capacity(), func() { <-w.slots })
	hbDone := make(chan struct{})
	hbCtx, hbStop := context.WithCancel(context.Background())
	go func() {
		defer close(hbDone)
		w.heartbeats(hbCtx)
	}()
	pullDone := make(chan struct{})
	go func() {
		defer close(pullDone)
		w.pulls()
	}()
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		w.watches()
	}()
	signalSaid := false
	select {
	case <-ctx.Done():
		w.mu.Lock()
		w.stopSignal = signalName(context.Cause(ctx))
		w.mu.Unlock()
		w.stopPulling(nil)
		w.log.Info("stopping: no more pulls; running commands may finish until the stop timeout, then are stopped (a second signal stops them now)", "code", "worker_draining", "reason", "signal", "running", w.count(), "stop_timeout_ms", cfg.StopTimeout.Milliseconds())
		signalSaid = true
	case <-w.draining:
	}
	<-pullDone
	<-watchDone
	drainWatchDone := make(chan struct{})
	drainWatchCtx, drainWatchStop := context.WithCancel(w.reqCtx)
	go func() {
		defer close(drainWatchDone)
		w.drainWatches(drainWatchCtx)
	}()
	w.drain(ctx, signalSaid)
	w.attempts.Wait()
	drainWatchStop()
	<-drainWatchDone
	hbStop()
	<-hbDone
	w.mu.Lock()
	s, fatal := w.summary, w.fatal
	w.mu.Unlock()
	if fatal == nil {
		w.endSession()
	}
	w.log.Info("worker stopped", "code", "worker_stopped", "completed", s.Completed, "stopped", s.Stopped,
		"lease_lost", s.LeaseLost, "terminal", s.Terminal, "killed", s.Killed, "abandoned", s.Abandoned, "reported", s.Reported, "given_back", s.GivenBack, "paced", s.Paced)
	return s, fatal
}

// drainSignals are the signals that stop a worker gracefully, by name.
var drainSignals = map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}

// absDir is dir made absolute, as the starting line names it: an
// operator reading the line of a worker started from elsewhere (a service
// manager's working directory) sees the journal's directory whole; dir as
// given when it cannot be made so.
func absDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// signalName names the signal a context made by signal.NotifyContext was
// cancelled by ("SIGTERM"), from the cause it gives ("terminated signal
// received"); "" for any other cause, which then goes unnamed.
func signalName(cause error) string {
	if cause == nil {
		return ""
	}
	for s, name := range drainSignals {
		if cause.Error() == s.String()+" signal received" {
			return name
		}
	}
	return ""
}

// countSignals closes w.again at the second drain signal the process gets,
// until done.
func (w *worker) countSignals(signals <-chan os.Signal, done <-chan struct{}) {
	for n := 0; ; {
		select {
		case <-done:
			return
		case <-signals:
			if n++; n == 2 {
				close(w.again)
				return
			}
		}
	}
}

// stoppedMessage is the error message of an attempt this worker stopped
// because it was itself stopping (run.StoppedWorkerMessage).
func (w *worker) stoppedMessage() string {
	w.mu.Lock()
	sig := w.stopSignal
	hurried := w.hurried
	w.mu.Unlock()
	return run.StoppedWorkerMessage(sig, w.cfg.StopTimeout, hurried)
}

// endSession ends the session of a worker that stops cleanly, so the
// cluster stops counting it live at once instead of when its lease passes.
// It is a courtesy: on any failure (a replica older than the request
// answers not_found) the session expires with its lease, and the stop goes
// on.
func (w *worker) endSession() {
	ctx, cancel := context.WithTimeout(w.reqCtx, endTimeout)
	defer cancel()
	sid := w.sessionID()
	rep, err := w.client.End(ctx, workerproto.EndRequest{SessionID: sid})
	switch {
	case Code(err) == workerproto.CodeNotFound:
		w.log.Info("the replica did not end the session (a replica older than the request, or a session already gone): it expires with its lease", "code", "session_end_unknown")
	case err != nil:
		w.log.Warn("could not end the session: it expires with its lease", "code", "session_end_failed", "error", err.Error())
	default:
		// released: grants of the session this worker never started (a
		// pull reply lost as it stopped) that the replica queued again.
		w.log.Info("session ended", "code", "session_ended", "state", rep.State, "released", rep.Released)
	}
}

// recoverLocal abandons what an earlier process of this worker left
// launching or running, ending a recorded process group only when it is
// provably the command's. An attempt nothing of whose command runs any
// more is kept for reportAbandoned; one whose process group might still
// run it (a pid that cannot be proven the command's, a process that
// could not be ended) is left to its lease, so that a retry never runs
// beside it any sooner than it did before.
func (w *worker) recoverLocal() error {
	left, err := w.journal.Recover(context.Background())
	if err != nil {
		return err
	}
	for _, a := range left {
		if a.State == journal.StateGranted {
			// Never spawned: Launching is journaled before any spawn.
			w.left = append(w.left, a)
			continue
		}
		w.summary.Abandoned++
		outcome := process.OrphanGone
		var endErr error
		if a.Pid > 0 && a.StartedAtMs > 0 {
			outcome, endErr = process.EndOrphan(a.Pid, a.StartedAtMs)
		}
		// What left the group, or a command spawned before its pid was
		// journaled, still carries the attempt's marker.
		marked, markErr := process.EndMarked(a.ID)
		if marked > 0 && outcome == process.OrphanGone {
			outcome = process.OrphanEnded
		}
		if outcome == process.OrphanEnded {
			w.summary.OrphansEnded++
		}
		attrs := []any{"code", "attempt_abandoned", "attempt_id", a.ID, "run_id", a.RunID, "state", a.State, "pid", a.Pid, "orphan", orphanName(outcome)}
		err := errors.Join(endErr, markErr)
		if err == nil && outcome != process.OrphanLeft {
			// Nothing of the command runs any more: its fresh working
			// directory, which the dead process never removed, goes (a
			// failure to remove it is said, and changes nothing else).
			if _, dirErr := process.RemoveAttemptDirs(a.ID); dirErr != nil {
				attrs = append(attrs, "dir_error", dirErr.Error())
			}
		}
		if err != nil {
			attrs = append(attrs, "error", err.Error())
		}
		if err != nil || outcome == process.OrphanLeft || a.Token == "" {
			w.log.Warn("an earlier worker process left this attempt unfinished: it is not run again; something may still run under its process group, so it is not reported: the replica records it lost once its lease expires (it may have already)", attrs...)
			continue
		}
		w.abandoned = append(w.abandoned, a)
		w.log.Warn("an earlier worker process left this attempt unfinished: it is not run again, nothing of its command runs any more, and it is reported lost to the replica once the worker registers", attrs...)
	}
	return nil
}

// reportAbandoned ends on the replica each attempt an earlier process of
// this worker left running and whose command is gone, under the lease the
// journal holds: the attempt ends lost (cancelled or timed out when the
// replica says so) within moments of the restart, instead of when its
// lease passes, up to a whole run lease later, and a retry policy on lost
// runs it again. The lease fences the report as it fences every step: an
// attempt the replica already ended, released or granted again under
// another token is answered terminal or refused, and nothing changes. A
// report that fails leaves the attempt to its lease.
//
// The reports go out under the requests' context, not the run's: a
// worker told to stop just after it registered (a supervisor's restart
// loop, a pod evicted as it starts) would otherwise drop them and leave
// each attempt to its lease, while reportTimeout bounds what they add to
// its stop.
func (w *worker) reportAbandoned() {
	if len(w.abandoned) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(w.reqCtx, reportTimeout)
	defer cancel()
	for _, a := range w.abandoned {
		w.reportLeft(ctx, a, run.AbandonedAttemptMessage, []any{"attempt_id", a.ID, "run_id", a.RunID})
	}
	w.abandoned = nil
}

// giveBackLeft gives back each grant an earlier process of this worker
// journaled and never launched, under that grant's own lease (its offer's
// token and the version the journal holds), so its Run is offered again
// within moments of the restart instead of when the grant's lease passes,
// up to a whole run lease later. The registration that just replaced the
// earlier process's session usually gave those grants back already (the
// reply is then gone); it cannot once that session expired, which a run
// lease longer than the session lease outlives. The replica's fences
// decide, as for every give-back: a grant released, expired or granted
// again under another token meanwhile is answered gone and nothing
// changes; a grant another worker's lease holds is refused as that
// worker's, and left to it; a grant whose
// start the replica acknowledged (the process ended between that
// acknowledgement and its journaled launch) is answered started, and,
// since the journal proves nothing was spawned, is reported lost under the
// same lease like an abandoned attempt. What is not settled by
// reportTimeout waits for its lease. Like reportAbandoned, it goes on
// under the requests' context when a stop comes.
func (w *worker) giveBackLeft() {
	if len(w.left) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(w.reqCtx, reportTimeout)
	defer cancel()
	for _, a := range w.left {
		attrs := []any{"attempt_id", a.ID, "run_id", a.RunID}
		if a.Token == "" {
			w.log.Warn("an earlier worker process left a grant it never started whose lease the journal does not hold: it is offered again when its lease passes",
				append(attrs, "code", "grant_left_unreturned")...)
			continue
		}
		rep, err := w.client.GiveBack(ctx, workerproto.GiveBackRequest{
			Lease: workerproto.Lease{AttemptID: a.ID, Token: a.Token, LeaseVersion: a.LeaseVersion}, Reason: workerproto.GiveBackRestarted})
		if Code(err) == workerproto.CodeForbidden {
			// Released while this worker was down and granted to another
			// worker since, whose lease the replica keeps.
			w.log.Info("a grant an earlier worker process never started is another worker's now: nothing to give back", append(attrs, "code", "grant_left_taken")...)
			continue
		}
		if err != nil {
			w.log.Warn("could not give back a grant an earlier worker process never started: it is offered again when its lease passes",
				append(attrs, "code", "grant_left_unreturned", "error", err.Error())...)
			continue
		}
		w.log.Info("gave back a grant an earlier worker process never started", append(attrs, "code", "grant_left_given_back", "reply", rep.Reply)...)
		switch rep.Reply {
		case workerproto.GiveBackReleased:
			w.count1(func(s *Summary) { s.GivenBack++ })
		case workerproto.GiveBackStarted:
			w.reportLeft(ctx, a, run.UnspawnedGrantMessage, attrs)
		}
	}
	w.left = nil
}

// reportLeft reports a lost under its lease (see reportLost) and logs the
// outcome with attrs.
func (w *worker) reportLeft(ctx context.Context, a journal.Attempt, message string, attrs []any) {
	rep, err := w.reportLost(ctx, a, message)
	switch {
	case err != nil:
		w.log.Warn("could not report an abandoned attempt: the replica records it lost once its lease expires", append(attrs, "code", "attempt_abandoned_unreported", "error", err.Error())...)
	case rep == nil:
		w.log.Info("the replica had already ended the abandoned attempt (its lease expired, or it was cancelled): nothing to report", append(attrs, "code", "attempt_abandoned_over")...)
	default:
		w.count1(func(s *Summary) { s.Reported++ })
		w.log.Info("abandoned attempt reported: the replica ended it", append(attrs, "code", "attempt_abandoned_reported", "attempt_state", rep.AttemptState, "run_state", rep.RunState)...)
	}
}

// reportLost renews a's lease under the version the journal holds, which
// answers the replica's current version (a replay when the last renewal's
// reply was lost), then completes it as a command the worker stopped by
// stopping itself, with message: the replica records that as lost. nil:
// the replica answered the attempt over.
func (w *worker) reportLost(ctx context.Context, a journal.Attempt, message string) (*workerproto.CompleteReply, error) {
	lease := workerproto.Lease{AttemptID: a.ID, Token: a.Token, LeaseVersion: a.LeaseVersion}
	renewed, err := w.client.Renew(ctx, workerproto.RenewRequest{Lease: lease})
	if err != nil {
		return nil, err
	}
	if renewed.Reply == workerproto.ReplyTerminal {
		return nil, nil
	}
	lease.LeaseVersion = renewed.LeaseVersion
	rep, err := w.client.Complete(ctx, workerproto.CompleteRequest{Lease: lease, Outcome: workerproto.OutcomeStopped,
		ErrorCode: ErrorCodeStopped, ErrorMessage: message}, time.Time{})
	if err != nil {
		return nil, err
	}
	return &rep, nil
}

func orphanName(o process.OrphanOutcome) string {
	switch o {
	case process.OrphanEnded:
		return "ended"
	case process.OrphanLeft:
		return "left"
	}
	return "gone"
}

// register opens a session, retrying while the ingress is unreachable or
// the refusal may pass. A refusal that cannot pass by itself (the
// credential, the worker's own --labels or --concurrency) ends the worker.
func (w *worker) register(ctx context.Context) error {
	bound, pause := w.cfg.registerTry, w.cfg.registerRetry
	var failing registerFailures
	reads := workerproto.Reads()
	for {
		// Bounded, so an unreachable ingress is logged instead of retried
		// in silence.
		rctx, cancel := context.WithTimeout(ctx, bound)
		bound = min(2*bound, registerTimeout)
		rep, err := w.client.Register(rctx, workerproto.RegisterRequest{Labels: w.cfg.Labels, Capacity: w.cfg.Concurrency, Version: w.cfg.Version, Reads: reads})
		cancel()
		if err == nil {
			w.mu.Lock()
			first := w.session == ""
			w.session = rep.SessionID
			w.granted = rep.Capacity
			w.logCap = rep.LogCapBytes
			w.runLease = time.Duration(rep.RunLeaseMs) * time.Millisecond
			w.drainedAtStart = first && rep.State == workerproto.SessionDraining
			w.name = rep.WorkerName
			w.readsUnkept = reads == nil
			w.mu.Unlock()
			attrs := []any{"code", "worker_registered", "worker", rep.WorkerName, "generation", rep.Generation,
				"capacity", rep.Capacity, "run_lease_ms", rep.RunLeaseMs, "labels", task.FormatWorkerLabels(rep.Labels), "state", rep.State}
			if failing.tries > 0 {
				attrs = append(attrs, "failed_tries", failing.tries, "failing_for_ms", time.Since(failing.since).Milliseconds())
			}
			w.log.Info("registered", attrs...)
			if reads == nil {
				w.log.Warn("registered through a replica older than this worker, which does not take the grant fields it reads ("+strings.Join(workerproto.Reads(), ", ")+"): until an upgraded replica keeps them from a heartbeat, `ql workers list` shows READS none and the Runs of a project with an env are not given to it; upgrade the replicas before the workers",
					"code", "worker_reads_unkept", "worker", rep.WorkerName)
			}
			if first && rep.Capacity < w.cfg.Concurrency {
				// Said once: the operator asked for more than the
				// credential allows, and a silent cap would halve a
				// migrated installation's throughput unseen.
				w.log.Warn(fmt.Sprintf("the credential caps this worker at %d commands at once, below its --concurrency %d: it runs %d; to raise the cap, create a credential with a larger --max-concurrency (`ql workers create NAME --max-concurrency N`) and revoke this one", rep.Capacity, w.cfg.Concurrency, rep.Capacity),
					"code", "worker_capacity_capped", "worker", rep.WorkerName, "capacity", rep.Capacity, "concurrency", w.cfg.Concurrency)
			}
			return nil
		}
		switch Code(err) {
		case workerproto.CodeUnauthenticated:
			return ErrUnauthenticated
		case workerproto.CodeInvalid:
			if reads != nil {
				// A replica older than the reads field refuses it as
				// unknown and gates no grant by it: register without.
				reads = nil
				continue
			}
			// What the worker was given (its --labels, --concurrency): the
			// operator's input to change, which exits 2 as every command's
			// refused input does.
			return qlerror.Wrap(qlerror.Invalid, err, "register")
		case workerproto.CodeForbidden:
			return fmt.Errorf("register: %w", err)
		case "":
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		failing.failed(w, err, time.Now())
		// Jitter spreads a fleet's tries after an outage; it guards
		// nothing.
		t := time.NewTimer(pause/2 + mathrand.N(pause/2+1)) //nolint:gosec // G404: pacing, not security
		pause = min(2*pause, registerRetryMax)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// registerFailures are the failed tries of one registration.
type registerFailures struct {
	tries int
	// since is the first failure; said when one was last logged.
	since, said time.Time
}

// failed counts a failed try and says so at the first and then at most
// every registerRepeat: an operator sees within seconds what is wrong and
// what to check, and a worker left running against a wrong --server for a
// day writes a line a minute, not one every few seconds.
func (f *registerFailures) failed(w *worker, err error, now time.Time) {
	f.tries++
	if f.tries == 1 {
		f.since, f.said = now, now
		w.log.Warn("could not register: "+registerHint(err, now)+"; the worker keeps trying (replicas may start after it), pausing up to "+
			registerRetryMax.String()+" between tries, and says so again every "+w.cfg.registerRepeat.String()+" while it fails",
			"code", "register_failed", "server", w.client.serverList(), "error", err.Error())
		return
	}
	if now.Sub(f.said) < w.cfg.registerRepeat {
		return
	}
	f.said = now
	w.log.Warn("still could not register: "+registerHint(err, now)+"; the worker keeps trying",
		"code", "register_failed", "server", w.client.serverList(), "error", err.Error(),
		"failed_tries", f.tries, "failing_for_ms", now.Sub(f.since).Milliseconds())
}

// plainToHTTPS is how net/http's client says an https:// address answered
// in plain HTTP: a string it builds itself, with no error value to match.
const plainToHTTPS = "server gave HTTP response to HTTPS client"

// registerHint says what a failed registration's last failure means and
// what to check, from the failure itself (the error, which names the
// address tried, goes beside it). now is this machine's clock, which a
// certificate's validity is checked against.
func registerHint(err error, now time.Time) string {
	var g *gaveUp
	if errors.As(err, &g) {
		err = g.last
	}
	var (
		foreign    notIngress
		refused    *Error
		dns        *net.DNSError
		unknownCA  x509.UnknownAuthorityError
		hostname   x509.HostnameError
		invalid    x509.CertificateInvalidError
		verify     *tls.CertificateVerificationError
		netTimeout interface{ Timeout() bool }
	)
	switch {
	case errors.As(err, &foreign) && foreign.tlsOnly:
		return "the address serves HTTPS: --server must name it with https://, and --ca-file the authority that signed its --worker-tls-cert when that is a private one"
	case strings.Contains(err.Error(), plainToHTTPS):
		// A replica's API serves plain HTTP on loopback (or given
		// --insecure-http), so an https:// --server answered in plain
		// HTTP is as often the API port given by mistake as an ingress
		// without TLS: the hint names both, the port first.
		return "the address serves plain HTTP: if it is a replica's API port (--http-addr, 8080 by default), give --server the replica's worker ingress instead (--worker-addr, 8081 by default); " +
			"if it is the ingress, --server must name it with http:// (a loopback address only), or the replica must serve HTTPS with --worker-tls-cert and --worker-tls-key"
	case errors.As(err, &foreign):
		return "the address answers, but not as a worker ingress: --server must name a replica's worker ingress (its --worker-addr, default port 8081), not its API port, nor a proxy whose replica is down"
	case errors.As(err, &refused):
		return refusalHint(refused)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing listens at the address tried: check that --server names a replica's worker ingress (its --worker-addr, default port 8081) and that the replica runs"
	case errors.As(err, &dns):
		return "the host name in --server does not resolve: check its spelling and this machine's DNS"
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return validityHint(invalid.Cert, now)
	case errors.As(err, &unknownCA) || errors.As(err, &hostname) || errors.As(err, &invalid) || errors.As(err, &verify):
		return "the replica's certificate is not trusted: give --ca-file the authority that signed its --worker-tls-cert, and check that --server names a host the certificate is for"
	case errors.As(err, &netTimeout) && netTimeout.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return "no answer in time: check --server, the network and firewalls between this machine and the replica, and that the replica runs"
	}
	return "check that --server names a replica's worker ingress and that the replica runs"
}

// refusalHint says what a refusal of a registration means, by its code:
// every refusal register retries on (the others end the worker) has its
// own, since "not ready" sent an operator with a wrong --server path to
// wait for a replica that was ready all along.
func refusalHint(refused *Error) string {
	switch refused.Code {
	case workerproto.CodeNotFound:
		// A registration names no session: the only thing it can miss is
		// the path itself.
		return "the address answers as a worker ingress, but not at that path: give --server the replica's address without a path (or the prefix of a proxy that maps it to /worker/v1/)"
	case workerproto.CodeUnavailable:
		return "the replica is not ready (starting, or cut off from its database)"
	case workerproto.CodeReplicaStopping:
		return "the replica is stopping (a restart or a shutdown): the worker registers with another --server when it has one, else with this one when it is back"
	case workerproto.CodeRateLimited:
		return "the replica refuses requests from this address for now (too many failed authentications or requests): check the credential of every worker at this address"
	case workerproto.CodeInternal:
		return "the replica failed on the request (an internal error, logged there under ingress.internal_error)"
	case workerproto.CodeFenced, workerproto.CodeSessionReplaced:
		return "other registrations with the same credential kept racing this one: check that no other worker process runs with this --credential-file"
	case workerproto.CodeTooLarge:
		return "the registration is larger than the replica takes: give fewer or shorter --labels"
	}
	return fmt.Sprintf("the replica refused the registration with %d %s, which this worker does not know: check that the worker and the replicas run the same version", refused.Status, refused.Code)
}

// capacity is how many commands run at once: the configured concurrency,
// or less when the credential allows less.
func (w *worker) capacity() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.granted > 0 {
		return min(w.cfg.Concurrency, w.granted)
	}
	return w.cfg.Concurrency
}

func (w *worker) sessionID() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.session
}

func (w *worker) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.running)
}

// workerName is the name the registration gave, "NAME" before it.
func (w *worker) workerName() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return cmp.Or(w.name, "NAME")
}

// stopPulling begins the drain; a non-nil fatal is what Run returns.
func (w *worker) stopPulling(fatal error) {
	w.mu.Lock()
	if w.fatal == nil {
		w.fatal = fatal
	}
	w.mu.Unlock()
	w.drainingOnce.Do(func() {
		w.stopBegun.Store(time.Now().UnixNano())
		close(w.draining)
	})
}

// heartbeats keeps the session alive until ctx ends.
func (w *worker) heartbeats(ctx context.Context) {
	t := time.NewTicker(w.cfg.heartbeatEvery)
	defer t.Stop()
	trim := time.NewTicker(journalTrimEvery)
	defer trim.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.reregister:
			// Every reply sent before the registration below says the old
			// session expired, and one that arrives while it is under way
			// asks again: by then the worker holds a new session, and
			// registering once more would replace its own.
			w.mu.Lock()
			current := w.expired == w.session
			w.mu.Unlock()
			if !current {
				continue
			}
			w.log.Warn("the session expired; registering again", "code", "session_expired")
			if err := w.register(ctx); err != nil && ctx.Err() == nil {
				w.log.Error("could not register again", "code", "register_failed", "error", err.Error())
			}
			continue
		case <-trim.C:
			if err := w.persist(ctx, once, w.journal.Trim); err != nil && !journal.Refused(err) {
				w.log.Warn("could not trim the journal", "code", "journal_failed", "error", err.Error())
			}
			continue
		case <-t.C:
		case <-w.client.reach.lost:
		}
		sid, rep, err := w.heartbeat(ctx)
		if err != nil {
			w.onSessionError(sid, "heartbeat", err)
			continue
		}
		w.onSessionState(sid, rep.State)
	}
}

// heartbeat sends one heartbeat for the current session, naming the
// grant fields the worker reads while no replica has kept them; a
// replica older than that refuses the field, and the heartbeat is sent
// again without it.
func (w *worker) heartbeat(ctx context.Context) (string, workerproto.HeartbeatReply, error) {
	w.mu.Lock()
	sid, unkept := w.session, w.readsUnkept
	w.mu.Unlock()
	req := workerproto.HeartbeatRequest{SessionID: sid, Running: w.count()}
	if unkept {
		req.Reads = workerproto.Reads()
	}
	hctx, cancel := context.WithTimeout(ctx, workerproto.HeartbeatEvery)
	defer cancel()
	rep, err := w.client.Heartbeat(hctx, req)
	if err != nil && req.Reads != nil && Code(err) == workerproto.CodeInvalid {
		req.Reads = nil
		rep, err = w.client.Heartbeat(hctx, req)
	}
	if err == nil && rep.ReadsKept {
		w.mu.Lock()
		kept := w.session == sid && w.readsUnkept
		if kept {
			w.readsUnkept = false
		}
		w.mu.Unlock()
		if kept {
			w.log.Info("an upgraded replica keeps the grant fields this worker reads: it is given the Runs of a project with an env", "code", "worker_reads_kept", "reads", strings.Join(workerproto.Reads(), ","))
		}
	}
	return sid, rep, err
}

// onSessionState acts on the state a heartbeat or pull reply for session
// sid carries (a start or renewal reply: the session its grant was pulled
// under). A reply about a session this worker already replaced by
// registering again says nothing about the current one; nor does replaced
// said of the session it saw expire, even before the new session's id
// arrived: its own registration replaced that one.
func (w *worker) onSessionState(sid, state string) {
	w.mu.Lock()
	stale := sid != w.session || (state == workerproto.SessionReplaced && sid == w.expired)
	w.mu.Unlock()
	if stale && (state == workerproto.SessionReplaced || state == workerproto.SessionExpired) {
		return
	}
	switch state {
	case workerproto.SessionDraining:
		select {
		case <-w.draining:
		default:
			w.log.Info("the session is draining: no more pulls; this process exits once its running commands end, even if the drain is lifted meanwhile (after `ql workers resume "+w.workerName()+"` the worker takes work when started again)", "code", "worker_draining", "reason", "session", "running", w.count())
		}
		w.stopPulling(nil)
	case workerproto.SessionReplaced:
		w.replaced()
	case workerproto.SessionExpired:
		w.requestRegister(sid)
	case workerproto.SessionRevoked:
		w.revoked()
	}
}

// requestRegister asks for a new session in place of sid, which has
// expired; running attempts keep their leases, which belong to the
// worker, not to a session.
func (w *worker) requestRegister(sid string) {
	w.mu.Lock()
	w.expired = sid
	w.mu.Unlock()
	select {
	case w.reregister <- struct{}{}:
	default:
	}
}

// revoked stops the worker: its credential is refused from now on.
func (w *worker) revoked() {
	w.revokedOnce.Do(func() {
		w.log.Error("the credential was refused (revoked or unknown): stopping", "code", "credential_refused")
	})
	w.stopPulling(ErrUnauthenticated)
	w.killAll()
}

// onSessionError acts on a refused heartbeat or pull sent for session sid.
func (w *worker) onSessionError(sid, what string, err error) {
	switch Code(err) {
	case workerproto.CodeSessionReplaced:
		if sid == w.sessionID() {
			w.replaced()
		}
	case workerproto.CodeUnauthenticated:
		w.revoked()
	case workerproto.CodeNotFound:
		// The session is gone (a partition longer than its lease).
		w.requestRegister(sid)
	default:
		// A request that got no answer at all was said by reachability,
		// once per outage and not at every heartbeat.
		var refused *Error
		if errors.As(err, &refused) {
			w.log.Warn(what+" failed", "code", what+"_failed", "error", err.Error())
		}
	}
}

func (w *worker) replaced() {
	w.replacedOnce.Do(func() {
		w.log.Error("a newer session of this credential replaced this worker: stopping", "code", "session_replaced")
	})
	w.stopPulling(ErrReplaced)
	w.killAll()
}

// killAll ends every running command at once and stops reporting.
func (w *worker) killAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, a := range w.running {
		a.terminate()
	}
	w.reqCancel()
}

// drain waits for running attempts up to the stop timeout (without limit
// when an operator drained the session and no signal came), then stops
// what still runs. signalSaid: the signal that ended ctx was said and its
// stop timeout runs from now; one that came as the session drained, not
// yet said, is said here.
func (w *worker) drain(ctx context.Context, signalSaid bool) {
	var limit <-chan time.Time
	var stopAt time.Time
	arm := func() {
		if stopAt.IsZero() {
			stopAt = time.Now().Add(w.cfg.StopTimeout)
			limit = time.After(w.cfg.StopTimeout)
		}
	}
	note := time.NewTicker(w.cfg.drainNoteEvery)
	defer note.Stop()
	if signalSaid {
		arm()
	}
	again := w.again
	stopAll := func(hurried bool) int {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.hurried = w.hurried || hurried
		for _, a := range w.running {
			a.stop(process.WorkerStoppingCause)
		}
		return len(w.running)
	}
	for w.count() > 0 {
		select {
		case <-w.idle:
		case <-ctx.Done():
			if stopAt.IsZero() {
				// A signal to a worker its session already drains: said,
				// as a signal before the drain is, with its name for the
				// messages of the attempts it may stop.
				w.mu.Lock()
				w.stopSignal = signalName(context.Cause(ctx))
				w.mu.Unlock()
				w.log.Info("stopping while drained: running commands may finish until the stop timeout, then are stopped (a second signal stops them now)",
					"code", "worker_draining", "reason", "signal", "running", w.count(), "stop_timeout_ms", w.cfg.StopTimeout.Milliseconds())
			}
			arm()
			ctx = context.Background()
		case <-limit:
			n := stopAll(false)
			w.log.Warn("stop timeout reached: stopping running commands", "code", "worker_stop_timeout", "running", n)
			limit, again = nil, nil
		case <-again:
			n := stopAll(true)
			w.log.Warn("asked to stop a second time: stopping running commands now, before the stop timeout", "code", "worker_stop_now", "running", n,
				"stop_timeout_ms", w.cfg.StopTimeout.Milliseconds())
			limit, again = nil, nil
		case <-note.C:
			w.noteDrain(stopAt, limit == nil && !stopAt.IsZero())
		}
	}
}

// noteDrain says which commands a draining worker still waits for and
// until when: stopping says they were stopped and are ending within their
// kill grace; a zero stopAt, that a drained session waits without limit.
func (w *worker) noteDrain(stopAt time.Time, stopping bool) {
	w.mu.Lock()
	runs := make([]string, 0, len(w.running))
	for _, a := range w.running {
		runs = append(runs, a.grant.Project+"/"+a.grant.Task+" "+a.grant.RunID)
	}
	w.mu.Unlock()
	slices.Sort(runs)
	attrs := []any{"code", "worker_drain_waiting", "running", len(runs), "runs", runs}
	msg := "still waiting for running commands to end before exiting"
	switch {
	case stopping:
		msg = "still waiting for the stopped commands to end (their kill grace) before exiting"
	case stopAt.IsZero():
		msg += ", without limit as the session drains (a signal stops them after --stop-timeout)"
	default:
		msg += "; they are stopped when the stop timeout runs out (a second signal stops them now)"
		attrs = append(attrs, "stop_in_ms", time.Until(stopAt).Milliseconds())
	}
	w.log.Info(msg, attrs...)
}

// pulls asks for work while there are free slots, until the drain.
func (w *worker) pulls() {
	for {
		select {
		case w.slots <- struct{}{}:
		case <-w.draining:
			return
		}
		free := 1
	fill:
		for {
			select {
			case w.slots <- struct{}{}:
				free++
			default:
				break fill
			}
		}
		if free = w.pace.withhold(free); free == 0 {
			w.signalIfFull()
			continue
		}
		used := w.pullOnce(free)
		for range free - max(used, 0) {
			<-w.slots
		}
		if used < 0 {
			t := time.NewTimer(pullRetry)
			select {
			case <-w.draining:
				t.Stop()
				return
			case <-t.C:
			}
		}
	}
}

// untilDraining is a request context that also ends once the worker stops
// pulling (draining closes), so a long-poll for work or a watch left
// waiting neither takes a grant nor holds up the stop. Call cancel when the
// request is done: it ends the goroutine that waits for the drain.
func (w *worker) untilDraining() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(w.reqCtx)
	go func() {
		select {
		case <-w.draining:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// pullOnce sends one pull for up to free grants and starts each; it
// returns how many slots the grants took (negative after a failure).
func (w *worker) pullOnce(free int) int {
	ctx, cancel := w.untilDraining()
	defer cancel()
	// While the journal refuses the offer (its disk full) no pull is sent:
	// a grant could be neither journaled nor started. The worker waits for
	// the journal here, its running commands going on, until the drain.
	var offer journal.Offer
	err := w.persist(ctx, func() bool { return false }, func(ctx context.Context) (err error) {
		offer, err = w.journal.NewOffer(ctx)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			// The drain ended the request before its offer was journaled:
			// nothing was offered, so a routine stop has nothing to report.
			return 0
		}
		w.log.Error("could not journal an offer: stopping", "code", "journal_failed", "error", err.Error())
		w.stopPulling(err)
		return 0
	}
	sid := w.sessionID()
	rep, sent, err := w.client.Pull(ctx, workerproto.PullRequest{SessionID: sid, OfferID: offer.ID, Token: offer.Token,
		Max: free, WaitMs: w.cfg.PullWait.Milliseconds()})
	if err != nil {
		if ctx.Err() != nil {
			return 0
		}
		w.onSessionError(sid, "pull", err)
		return -1
	}
	grants := rep.Grants
	if len(grants) > free {
		w.log.Error("the replica granted more than asked; the extra grants are given back", "code", "grant_overflow", "asked", free, "granted", len(grants))
		for _, g := range grants[free:] {
			w.giveBack(g, offer.Token, workerproto.GiveBackOverCapacity)
		}
		grants = grants[:free]
	}
	recs := make([]journal.Granted, len(grants))
	for i, g := range grants {
		recs[i] = journal.Granted{AttemptID: g.AttemptID, RunID: g.RunID, LeaseVersion: g.LeaseVersion}
	}
	if err := w.persist(context.Background(), once, func(ctx context.Context) error { return w.journal.Answered(ctx, offer, recs) }); err != nil {
		// Unjournaled grants are never started: they go back to the
		// queue (or, from a replica older than that, wait for their
		// leases) at once, for a worker whose journal takes them. A
		// journal that refuses writes for now (its disk full) holds the
		// next pull until it takes them again; one that failed otherwise
		// stops the worker.
		for _, g := range grants {
			w.giveBack(g, offer.Token, workerproto.GiveBackJournal)
		}
		if journal.Refused(err) {
			return 0
		}
		w.log.Error("could not journal grants: stopping", "code", "journal_failed", "error", err.Error())
		w.stopPulling(err)
		return 0
	}
	for _, g := range grants {
		w.start(g, offer.Token, sid, sent)
	}
	w.stopsAsked(rep.Stop)
	w.onSessionState(sid, rep.State)
	if rep.State == workerproto.SessionExpired && len(grants) == 0 {
		return -1 // wait for the new session instead of pulling at once
	}
	return len(grants)
}

// watches keeps a watch (a pull of max 0) waiting on the replica while
// every slot is busy, until the drain (drainWatches then keeps one while
// commands run). With a free slot the worker's pull waits on the
// replica, and a replacement answers it at once; with none,
// no pull waits, and without the watch a replaced worker would hear it
// only at its next renewal or heartbeat (up to 10 s at the default lease),
// two processes holding the credential meanwhile. A slot that frees while
// a watch waits does not end the watch: the pull goes out beside it, and
// the watch ends at its wait bound (cancelling it would close its
// connection, a new TLS handshake per freed slot).
func (w *worker) watches() {
	for {
		select {
		case <-w.draining:
			return
		case <-w.full:
		}
		for w.noFreeSlot() && !w.stopping() {
			if !w.watchOnce() {
				return
			}
		}
	}
}

// watchOnce sends one watch and acts on the session state it answers; it
// reports false when the worker should stop watching: it is stopping, or
// it cannot make a watch.
func (w *worker) watchOnce() bool {
	ctx, cancel := w.untilDraining()
	defer cancel()
	// A watch is granted nothing, so its offer is not journaled: there is
	// no reply to replay. The replica still takes the pull's fields.
	offer, err := watchOffer()
	if err != nil {
		w.log.Error("could not make a watch's token: the worker hears of a replacement at its next renewal or heartbeat", "code", "session_watch_failed", "error", err.Error())
		return false
	}
	sid := w.sessionID()
	rep, _, err := w.client.Pull(ctx, workerproto.PullRequest{SessionID: sid, OfferID: offer.ID, Token: offer.Token,
		Max: 0, WaitMs: w.cfg.PullWait.Milliseconds()})
	switch {
	case err != nil && ctx.Err() != nil:
		return false
	case Code(err) == workerproto.CodeInvalid:
		return w.watchRefused(err)
	case err != nil:
		w.onSessionError(sid, "watch", err)
	default:
		w.stopsAsked(rep.Stop)
		w.onSessionState(sid, rep.State)
		if rep.State == workerproto.SessionActive {
			return true
		}
	}
	// A refusal, or a session that is not active (expired: the new
	// session's id is on its way), is not asked again at once.
	t := time.NewTimer(pullRetry)
	defer t.Stop()
	select {
	case <-w.draining:
		return false
	case <-t.C:
		return true
	}
}

// watchRefused waits after a replica older than the watch refused it,
// until the worker moves to another server (its next replica may be newer)
// or the retry interval passes (the same address may lead to a newer replica by
// then), and reports false when the worker stops meanwhile. Giving up the
// watch for good would leave a worker that outlived a rolling upgrade
// without it, hearing a replacement only at its next renewal or heartbeat.
func (w *worker) watchRefused(err error) bool {
	server, url, _ := w.client.refuser(err)
	if !w.watchRefusedBy[url] {
		w.watchRefusedBy[url] = true
		w.log.Info("the replica does not take a watch (a replica older than it): while every slot is busy, a replacement is heard at the next renewal or heartbeat; the watch is tried again on another server, or here after retry_after_ms",
			"code", "session_watch_unknown", "server", url, "retry_after_ms", w.cfg.watchRetry.Milliseconds())
	}
	t := time.NewTimer(w.cfg.watchRetry)
	defer t.Stop()
	select {
	case <-w.draining:
		return false
	case <-w.client.movedFrom(server):
	case <-t.C:
	}
	return true
}

// stopsAsked has each running attempt a pull or watch reply says a stop
// was asked of renew its lease now rather than at its renewal timer (up to
// a third of the run lease later): the renewal answers stop, and the
// command is ended as on any stop reply. An id this worker does not run
// (it just completed) is no news.
func (w *worker) stopsAsked(attemptIDs []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, id := range attemptIDs {
		if a := w.running[id]; a != nil {
			a.renewSoon()
		}
	}
}

// watchOffer is a fresh offer id and token for a watch.
func watchOffer() (journal.Offer, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return journal.Offer{}, err
	}
	return journal.Offer{ID: uuid.NewString(), Token: base64.RawURLEncoding.EncodeToString(raw)}, nil
}

// giveBack returns a grant this worker will not start, so the replica
// queues its Run again at once instead of when its lease passes. It never
// fails the worker: a replica older than the request (not found), or one
// that cannot be reached, leaves the grant to its lease.
func (w *worker) giveBack(g workerproto.Grant, token, reason string) {
	ctx, cancel := context.WithTimeout(w.reqCtx, giveBackTimeout)
	defer cancel()
	rep, err := w.client.GiveBack(ctx, workerproto.GiveBackRequest{
		Lease: workerproto.Lease{AttemptID: g.AttemptID, Token: token, LeaseVersion: g.LeaseVersion}, Reason: reason})
	attrs := []any{"attempt_id", g.AttemptID, "run_id", g.RunID, "attempt", g.AttemptNumber, "project", g.Project, "task", g.Task, "reason", reason}
	switch {
	case Code(err) == workerproto.CodeNotFound:
		w.giveBackUnknown.Do(func() {
			w.log.Info("the replica did not take the grant back (a replica older than the request, or a grant it no longer holds): it is offered again when its lease passes",
				append(attrs, "code", "grant_give_back_unknown")...)
		})
	case err != nil:
		w.log.Warn("could not give the grant back: it is offered again when its lease passes", append(attrs, "code", "grant_give_back_failed", "error", err.Error())...)
	default:
		w.log.Info("grant given back", append(attrs, "code", "grant_given_back", "reply", rep.Reply)...)
	}
}

// stopping reports whether the worker has stopped pulling (a signal, a
// drained session, or an error that ends it): it starts nothing more.
func (w *worker) stopping() bool {
	select {
	case <-w.draining:
		return true
	default:
		return false
	}
}

// start runs one grant, pulled under session sid, in its own goroutine;
// it holds one slot until done.
func (w *worker) start(g workerproto.Grant, token, sid string, sent time.Time) {
	a := newAttempt(w, g, token, sid, sent)
	w.mu.Lock()
	w.running[g.AttemptID] = a
	w.mu.Unlock()
	w.signalIfFull()
	w.attempts.Add(1)
	go func() {
		defer func() {
			w.mu.Lock()
			delete(w.running, g.AttemptID)
			w.mu.Unlock()
			<-w.slots
			w.attempts.Done()
			select {
			case w.idle <- struct{}{}:
			default:
			}
		}()
		a.run()
	}()
}

// noFreeSlot: every slot runs a command or is held by the pacer.
func (w *worker) noFreeSlot() bool {
	return w.count()+w.pace.holding() >= cap(w.slots)
}

// signalIfFull wakes the watch goroutine when the last free slot was
// taken, by a command or by the pacer.
func (w *worker) signalIfFull() {
	if w.noFreeSlot() {
		select {
		case w.full <- struct{}{}:
		default:
		}
	}
}

// answered tells the pacer how long a start or renewal took (unanswered:
// it got no answer) and says when the worker's share changes from or back
// to its capacity.
func (w *worker) answered(took, lease time.Duration, unanswered bool) {
	limit, cut, restored := w.pace.answered(took, lease, unanswered, time.Now())
	switch {
	case cut:
		w.count1(func(s *Summary) { s.Paced++ })
		w.log.Warn("the replicas answer starts and renewals late: the worker takes fewer commands at once until they answer in time again",
			"code", "worker_paced", "took_ms", took.Milliseconds(), "answered", !unanswered, "lease_ms", lease.Milliseconds(),
			"limit", limit, "capacity", cap(w.slots))
	case restored:
		w.log.Info("the replicas answer in time again: the worker takes commands up to its capacity", "code", "worker_pace_restored", "capacity", limit)
	}
}

func (w *worker) count1(f func(*Summary)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f(&w.summary)
}

// runLeaseOr is the run lease's length as the registration said it, or
// held when it said none. A grant's own length is no measure of it: it
// counts from when the pull was sent, so it is the run lease plus the
// pull's long-poll wait.
func (w *worker) runLeaseOr(held time.Duration) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.runLease > 0 {
		return w.runLease
	}
	return held
}

// logLimit is how much unsent output an attempt holds: the output window,
// or the replica's log cap when smaller (it never stores more, so output
// dropped while no replica is reachable never pushes a log past its cap).
func (w *worker) logLimit() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.logCap > 0 {
		return int(min(w.logCap, outputWindow))
	}
	return outputWindow
}
