package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qinglong/qinglong/internal/core/loop"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/single/attemptlog"
)

// Dispatcher starts claimed attempts as local processes, at most
// Concurrency at a time.
type Dispatcher struct {
	store Store
	cfg   Config
	loop  *loop.Loop
	slots chan struct{}

	workers   sync.WaitGroup
	runCtx    context.Context
	cancelRun context.CancelCauseFunc
	// killRuns closes when stopping can wait no longer for commands that
	// were sent SIGTERM: the rest of their kill grace is cut short.
	killRuns     chan struct{}
	killRunsOnce sync.Once
	// recording ends when the stop can wait no longer for the store to
	// take results it refuses: they are kept in files instead (kept).
	recording     context.Context
	stopRecording context.CancelFunc

	// running maps each started attempt to the cancel of its command's
	// context, for a cancel asked of its run.
	mu      sync.Mutex
	running map[string]context.CancelCauseFunc

	// grown counts what the logs took on disk since Config.LogsGrown was
	// last called.
	grown atomic.Int64

	// stopReaper ends the collection of the dead descendants this
	// server adopted (process.ReapAdopted), which reaped closes after.
	stopReaper context.CancelFunc
	reaped     chan struct{}
}

// New validates cfg; nothing runs until Start.
func New(st Store, cfg Config) (*Dispatcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := &Dispatcher{store: st, cfg: cfg, slots: make(chan struct{}, cfg.Concurrency), killRuns: make(chan struct{}),
		running: map[string]context.CancelCauseFunc{}}
	d.runCtx, d.cancelRun = context.WithCancelCause(context.Background())
	d.recording, d.stopRecording = context.WithCancel(context.Background())
	l, err := loop.New(loop.Config{Name: "executor", Cadence: cfg.PollInterval, StopTimeout: cfg.StopTimeout, OnError: cfg.OnError}, d.round)
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Invalid, err, "executor")
	}
	d.loop = l
	return d, nil
}

// Start creates the log directory and begins dispatching; the first round
// picks up attempts admitted before this start.
func (d *Dispatcher) Start(ctx context.Context) error {
	if err := os.MkdirAll(d.cfg.LogDir, 0o700); err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "create the log directory %s; check permissions of the data directory", d.cfg.LogDir)
	}
	reaperCtx, stopReaper := context.WithCancel(context.Background())
	d.stopReaper, d.reaped = stopReaper, make(chan struct{})
	go func() {
		defer close(d.reaped)
		process.ReapAdopted(reaperCtx)
	}()
	if err := d.loop.Start(ctx); err != nil {
		d.endReaper()
		return err
	}
	return nil
}

// endReaper stops collecting adopted descendants: the dispatcher stopped.
func (d *Dispatcher) endReaper() {
	if d.stopReaper != nil {
		d.stopReaper()
		<-d.reaped
	}
}

// Wake asks for a dispatch round now; the scheduler calls it after an
// admission commits.
func (d *Dispatcher) Wake() { d.loop.Wake() }

// Stop starts nothing more, gives running commands half the stop timeout
// to finish, then sends their processes SIGTERM; whatever still runs at
// three quarters of the stop timeout gets SIGKILL, whatever the tasks'
// kill grace, so results are recorded (cancelled) within the stop timeout.
// A result the store still refuses at the stop timeout (or when ctx ends)
// is kept in a file for the next start to record, which Stop waits for at
// most keepWait more.
func (d *Dispatcher) Stop(ctx context.Context) error {
	begun := time.Now()
	defer d.endReaper()
	defer d.hardKill()
	loopErr := d.loop.Stop(ctx)
	// A round the loop gave up on (its stop timed out) may still start
	// commands: waiting for them must begin only once it has returned, as
	// a WaitGroup's Add may not race its Wait, and a command it starts
	// then is still one to drain.
	done := make(chan struct{})
	go func() {
		<-d.loop.Ended()
		d.workers.Wait()
		close(done)
	}()
	for _, phase := range []struct {
		at   time.Duration
		then func()
	}{
		{d.cfg.StopTimeout / 2, d.cancelRuns},
		{d.cfg.StopTimeout * 3 / 4, d.hardKill},
		{d.cfg.StopTimeout, func() {}},
	} {
		limit := time.NewTimer(time.Until(begun.Add(phase.at)))
		select {
		case <-done:
			limit.Stop()
			d.cancelRuns()
			return loopErr
		case <-limit.C:
		case <-ctx.Done():
			limit.Stop()
			d.cancelRuns()
			d.hardKill()
			return errors.Join(loopErr, d.keepUnrecordedResults(done))
		}
		phase.then()
	}
	return errors.Join(loopErr, d.keepUnrecordedResults(done))
}

// keepWait bounds how long a stop whose timeout passed waits for the
// results still unrecorded to be kept in files: a few hundred bytes each,
// written and fsynced.
const keepWait = time.Second

// keepUnrecordedResults ends the tries of every result the store still
// refuses, so each is kept in a file, and waits for that at most keepWait.
// The stop is clean when every result was recorded or kept: the next start
// records the kept ones.
func (d *Dispatcher) keepUnrecordedResults(done <-chan struct{}) error {
	d.stopRecording()
	limit := time.NewTimer(keepWait)
	defer limit.Stop()
	select {
	case <-done:
		return nil
	case <-limit.C:
		return fmt.Errorf("executor: %w after %s: commands were still being recorded", loop.ErrDrainTimeout, d.cfg.StopTimeout)
	}
}

// cancelRuns stops every running command, its log saying the server is
// stopping.
func (d *Dispatcher) cancelRuns() { d.cancelRun(process.ServerStoppingCause) }

func (d *Dispatcher) hardKill() {
	d.killRunsOnce.Do(func() { close(d.killRuns) })
}

// requeuePage bounds the Runs one round queues again after their retry
// backoff.
const requeuePage = 100

// retryMargin is added to the wait for a backoff's end, so the round that
// follows reads the clock at or after it despite millisecond rounding.
const retryMargin = 2 * time.Millisecond

// round stops the commands whose run was asked to cancel, then, unless
// held, queues the Runs whose retry backoff has passed and starts as many
// pending attempts as there are free slots. It asks for another round at
// once when it filled them all from a full page, and for one when the
// earliest backoff still running ends, so a retry starts then rather than
// at the next poll.
func (d *Dispatcher) round(ctx context.Context) (bool, error) {
	if err := d.stopCancelled(ctx); err != nil {
		return false, err
	}
	done, held := d.admit()
	if held {
		return false, nil
	}
	requeued, next, err := d.store.RetriesRequeue(ctx, requeuePage)
	done()
	if err != nil {
		return false, err
	}
	if next > 0 {
		d.loop.WakeWithin(next + retryMargin)
	}
	free := cap(d.slots) - len(d.slots)
	if free == 0 {
		return requeued == requeuePage, nil
	}
	pending, err := d.store.AttemptsPending(ctx, free)
	if err != nil {
		return false, err
	}
	started := 0
	for _, a := range pending {
		// The hold read when the round began may have been set since:
		// each start passes the gate again, and holds it until its
		// command's process exists (see Config.Admit).
		spawned, held := d.admit()
		if held {
			return false, nil
		}
		logPath := attemptlog.Path(d.cfg.LogDir, a.ID)
		plan, id, planErr, err := d.store.AttemptStart(ctx, a.ID, d.cfg.Owner.ID, logPath)
		if qlerror.Is(err, qlerror.Conflict) {
			spawned()
			continue
		}
		if err != nil {
			spawned()
			return false, err
		}
		d.slots <- struct{}{}
		d.workers.Add(1)
		started++
		go d.work(a, id, plan, planErr, logPath, spawned)
	}
	return (len(pending) == free && started > 0) || requeued == requeuePage, nil
}

// admit passes Config.Admit's gate: held is true when the server takes no
// work now, and otherwise done ends the pass (exactly once, whoever calls
// it).
func (d *Dispatcher) admit() (done func(), held bool) {
	if d.cfg.Admit == nil {
		return func() {}, false
	}
	release, err := d.cfg.Admit()
	if err != nil {
		return nil, true
	}
	return sync.OnceFunc(release), false
}

// stopCancelled cancels the command of every attempt of this executor
// whose run was asked to cancel (by `ql runs cancel`, another process:
// the intent is in the database, read once per round while a command
// runs).
func (d *Dispatcher) stopCancelled(ctx context.Context) error {
	d.mu.Lock()
	busy := len(d.running) > 0
	d.mu.Unlock()
	if !busy {
		return nil
	}
	ids, err := d.store.AttemptsCancelRequested(ctx, d.cfg.Owner.ID)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, id := range ids {
		if cancel, ok := d.running[id]; ok {
			cancel(process.CancelAskedCause)
		}
	}
	return nil
}

// work runs one started attempt and records its result; spawned ends its
// pass of the gate (Config.Admit) once its command's process exists, or
// once the attempt ended without one.
func (d *Dispatcher) work(a run.Attempt, id run.Identity, plan task.Execution, planErr error, logPath string, spawned func()) {
	ctx, cancel := context.WithCancelCause(d.runCtx)
	d.mu.Lock()
	d.running[a.ID] = cancel
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.running, a.ID)
		d.mu.Unlock()
		cancel(nil)
		<-d.slots
		d.workers.Done()
		d.Wake()
	}()
	st := start{spawned: spawned}
	res := d.execute(ctx, a, id, plan, planErr, logPath, &st)
	finished, err := d.record(res, st)
	if err != nil {
		d.cfg.OnError(fmt.Errorf("record attempt %s: %w", a.ID, err))
		return
	}
	if d.cfg.OnFinish != nil {
		res.RunID = a.RunID
		d.cfg.OnFinish(id, res, finished)
	}
}

// execute runs one attempt and returns its result for the store; st
// learns of its command's start.
func (d *Dispatcher) execute(ctx context.Context, a run.Attempt, id run.Identity, plan task.Execution, planErr error, logPath string, st *start) run.Attempt {
	begun := d.cfg.NowMs()
	out := run.Attempt{ID: a.ID, State: run.AttemptFailed, StartedAtMs: &begun}
	cut, marked := d.markCut(a.ID)
	defer marked()
	log, err := createLog(logPath, d.cfg.LogCapBytes, cut)
	if err != nil {
		// The command runs all the same: a full disk or a directory out of
		// inodes must not stop every occurrence from running (a log that
		// cannot be written never blocks its command); its output is
		// counted and dropped, and its attempt says so.
		d.cfg.OnError(fmt.Errorf("attempt %s: create log %s: %w; its command runs without a log%s", a.ID, logPath, err, spaceHint(err)))
		log = discardLog(d.cfg.LogCapBytes, cut, err)
	}
	if log.file != nil {
		log.grew = d.logGrew
		d.logGrew(retention.LogBlockBytes)
	}
	// The task's command with its project's env, the task's own winning:
	// its secrets are resolved as the task's are.
	command := plan.Command.WithProjectEnv(plan.ProjectEnv)
	var secrets map[string]string
	var secretErr error
	if planErr == nil {
		refs := process.SecretRefs(command)
		if secretErr = process.CheckSecretProjects(id.Project, refs); secretErr == nil {
			secrets, secretErr = d.cfg.Secrets.Resolve(refs)
		}
	}
	mask := process.NewRedactor(log, process.Values(secrets))
	var res process.Result
	switch {
	case planErr != nil:
		fmt.Fprintf(mask, "qinglong: the execution plan failed verification and was not run: %v\n", planErr)
		res = process.Result{State: run.AttemptFailed, Code: ErrorCodePlanInvalid}
	case secretErr != nil:
		fmt.Fprintf(mask, "qinglong: the command was not started: %v\n", secretErr)
		res = process.Result{State: run.AttemptFailed, Code: ErrorCodeSecret}
	default:
		res = d.launch(ctx, a, id, command, secrets, mask, st)
		switch {
		case errors.Is(res.Cause, process.CancelAskedCause):
			res.Code = ErrorCodeCancelled
		case res.State == run.AttemptCancelled:
			// The server is stopping: nobody cancelled the Run and its
			// command did not finish. The attempt ends lost, as after a
			// crash and as a stopping worker's does on the cluster, so the
			// Run is not recorded as a choice someone made.
			res.State = run.AttemptLost
		}
	}
	// A command that never started (its plan or a secret refused, or its
	// spawn failed) ends the gate's pass here.
	st.spawned()
	// A log never created was told of when it could not be, once.
	if err := errors.Join(mask.Flush(), log.Close()); err != nil && log.file != nil {
		d.cfg.OnError(fmt.Errorf("attempt %s: its log %s is incomplete: %w%s", a.ID, logPath, err, spaceHint(err)))
	}
	// The attempt ended now, whenever the store takes its result: a full
	// disk or a held write lock delays the record, not the end.
	ended := d.cfg.NowMs()
	out.FinishedAtMs = &ended
	out.State, out.ExitCode, out.ErrorCode, out.Signal = res.State, res.ExitCode, res.Code, res.Signal
	out.ErrorMessage = errorMessage(res)
	out.LogBytes, out.LogTruncated = log.stored, log.truncated || log.err != nil
	// Only a log that was created is named to whoever observes the result
	// (the server's "read its output" line): a command that ran without
	// one has nothing `ql runs logs` could print.
	if log.file != nil {
		out.LogPath = logPath
	}
	if log.err != nil {
		out.ErrorMessage = strings.TrimPrefix(out.ErrorMessage+"; "+logMessage(log), "; ")
	}
	return out
}

// logGrew counts n bytes more on disk in the logs and tells
// Config.LogsGrown each time the count since it was last told reaches
// LogsGrownEvery: often enough that retention's cap holds between its
// rounds, and never once per write. It never blocks: it is called from the
// copy of a command's output.
func (d *Dispatcher) logGrew(n int64) {
	if d.cfg.LogsGrown == nil {
		return
	}
	// A count another write reset first is left to the write after.
	if v := d.grown.Add(n); v >= d.cfg.LogsGrownEvery && d.grown.CompareAndSwap(v, 0) {
		d.cfg.LogsGrown()
	}
}

// markCut is how an attempt's log that passes its cap is marked truncated
// in the store while the command runs, so the Run's readers (the API's log
// headers, `ql runs show`) say so before it ends: cut signals it, without
// waiting, from the copy of the command's output, which the write must
// never hold up; a goroutine of the attempt's records it. marked returns
// once that is done, or at once when the log was never cut.
func (d *Dispatcher) markCut(attemptID string) (cut func(), marked func()) {
	cutCh, done, recorded := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(recorded)
		select {
		case <-cutCh:
		case <-done:
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
		defer cancel()
		// The attempt's result says it again when it ends.
		if err := d.store.AttemptLogCut(ctx, attemptID); err != nil {
			d.cfg.OnError(fmt.Errorf("attempt %s: mark its log cut at the cap: %w", attemptID, err))
		}
	}()
	return func() { close(cutCh) }, func() {
		close(done)
		<-recorded
	}
}

// errorMessage says in words why an attempt ended as it did, in the words
// a worker reports for the same end.
func errorMessage(res process.Result) string {
	switch res.Code {
	case process.ErrorCodeSignaled:
		return run.SignalMessage(res.Signal)
	case process.ErrorCodeSpawnFailed, process.ErrorCodeRunAs, process.ErrorCodeWorkDir, ErrorCodeSecret, ErrorCodePlanInvalid:
		return run.NotStartedMessage
	}
	return ""
}

// launch runs the attempt's command as a local process and records its
// pid once it exists. A start the store cannot take yet is left to st, to
// be recorded before the result: the command runs meanwhile, its timeout
// and a cancel heard as ever, which waiting for the store here would
// hold up.
func (d *Dispatcher) launch(ctx context.Context, a run.Attempt, id run.Identity, c task.Command, secrets map[string]string, out io.Writer, st *start) process.Result {
	spec := process.Spec{Identity: id, Command: c, BaseEnv: d.cfg.BaseEnv, Secrets: secrets, DefaultRunAs: d.cfg.RunAs}
	res := process.Run(ctx, d.killRuns, spec, out, func(pid int) {
		st.spawned()
		ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
		defer cancel()
		err := d.store.AttemptRunning(ctx, a.ID, pid)
		switch {
		case refusedForNow(err):
			st.pid, st.unrecorded = pid, true
		case err != nil:
			d.cfg.OnError(fmt.Errorf("record start of attempt %s: %w", a.ID, err))
		}
	})
	if res.CleanupErr != nil {
		d.cfg.OnError(res.CleanupErr)
	}
	return res
}
