package executor

import (
	"time"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

// Error codes the executor records besides process's: the attempt could
// not get as far as starting its command.
const (
	ErrorCodeSecret      = "secret_unavailable"
	ErrorCodePlanInvalid = "execution_revision_invalid"
	// ErrorCodeCancelled: the command was stopped because its run was
	// asked to cancel (as the cluster records it), not because the server
	// stopped.
	ErrorCodeCancelled = "cancelled"
)

// Limits of Config.
const (
	MaxConcurrency = 256
	MinLogCapBytes = 1 << 10
	MaxLogCapBytes = 1 << 30
	// recordTimeout bounds one write of an attempt's start or result; a
	// write the store keeps refusing is tried again until the stop
	// timeout, then kept in a file (Dispatcher.Stop).
	recordTimeout = 30 * time.Second
	// recordRetry is the first pause before a refused write is tried
	// again; the pauses double up to recordRetryMax.
	recordRetry    = 100 * time.Millisecond
	recordRetryMax = 5 * time.Second
	// recordQuietFor is how long a write may be refused before the
	// operator is told.
	recordQuietFor = 5 * time.Second
)

// Config of a dispatcher. Every field is required; the composition root
// applies the profile's defaults.
type Config struct {
	// Concurrency is how many commands run at once (1–256).
	Concurrency int
	// LogDir holds one <attemptId>.log per attempt.
	LogDir string
	// LogCapBytes caps one attempt's captured output (1 KiB–1 GiB).
	LogCapBytes int64
	// Secrets resolves secret references at start.
	Secrets process.Secrets
	// Owner is this executor instance; it must outlive the dispatcher.
	Owner *Owner
	// BaseEnv starts every command's environment (e.g. PATH, HOME); the
	// task's own variables override it.
	BaseEnv []string
	// RunAs is the account of commands whose task names none; zero runs
	// them as this server.
	RunAs task.RunAs
	// PollInterval is how often the dispatcher looks for work it was not
	// woken for (runs admitted by another process on the same file).
	PollInterval time.Duration
	// StopTimeout bounds Stop: running commands get half of it to finish,
	// then their groups are killed and recorded cancelled.
	StopTimeout time.Duration
	// OnError receives store failures; it must not block for long.
	OnError func(error)
	// NowMs is the store's clock: it stamps when an attempt's command
	// ended, the time its result carries into the store however late the
	// store takes it.
	NowMs func() int64
	// OnFinish, if set, observes every recorded result (the operator's
	// "run finished" line) with the Run and attempt it is of and the state
	// the store reported it finished the Run in ("" when it did not finish
	// it); the result's LogPath is its log's, empty when the command had
	// none, and its StartedAtMs when the executor began it. It must not
	// block for long.
	OnFinish func(id run.Identity, a run.Attempt, finished run.State)
	// Admit, if set, is the gate every start of a command passes, and
	// every requeue of Runs whose retry backoff passed: an error says the
	// server is held (its database path names another file, so a start
	// would be written where nobody reads it) and nothing more starts
	// this round; otherwise done is called once the command's process
	// exists, or once its attempt ended without one. The server's gate is
	// a read lock that setting the hold takes for writing, so a round that
	// found the server not held cannot start a command after the hold is
	// set (and readiness says so). Commands already running go on and
	// their results are recorded, and a cancel asked of their Runs still
	// stops them.
	Admit func() (done func(), err error)
	// LogsGrown, if set, is called each time the logs took LogsGrownEvery
	// bytes more on disk (their bytes, and a block for each new file)
	// since it was last called: the server wakes log retention with it, so
	// the logs' cap holds between its rounds. It must not block.
	LogsGrown func()
	// LogsGrownEvery is the growth that calls LogsGrown (1 byte or more
	// when LogsGrown is set).
	LogsGrownEvery int64
}

// Validate names the field and its allowed range; the two a user sets are
// named by ql serve's flags, as serve's own checks name them.
func (c Config) Validate() error {
	switch {
	case c.Concurrency < 1 || c.Concurrency > MaxConcurrency:
		return qlerror.New(qlerror.Invalid, "--concurrency %d is outside 1–%d", c.Concurrency, MaxConcurrency)
	case c.LogCapBytes < MinLogCapBytes || c.LogCapBytes > MaxLogCapBytes:
		return qlerror.New(qlerror.Invalid, "--log-max-bytes %s is outside %s–%s", retention.FormatBytes(c.LogCapBytes), retention.FormatBytes(MinLogCapBytes), retention.FormatBytes(MaxLogCapBytes))
	case c.LogDir == "":
		return qlerror.New(qlerror.Invalid, "executor log directory: is required")
	case c.Owner == nil:
		return qlerror.New(qlerror.Internal, "executor started without an owner")
	case c.LogsGrown != nil && c.LogsGrownEvery < 1:
		return qlerror.New(qlerror.Internal, "executor: LogsGrownEvery %d with LogsGrown set; give 1 byte or more", c.LogsGrownEvery)
	case c.OnError == nil:
		return qlerror.New(qlerror.Internal, "executor started without an error sink")
	case c.NowMs == nil:
		return qlerror.New(qlerror.Internal, "executor started without a clock")
	}
	return nil
}
