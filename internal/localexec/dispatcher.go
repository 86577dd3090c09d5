package localexec

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/qinglong/qinglong/internal/loop"
	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/run"
	"github.com/qinglong/qinglong/internal/task"
)

// Dispatcher starts claimed attempts as local processes, at most
// Concurrency at a time.
type Dispatcher struct {
	store Store
	cfg   Config
	loop  *loop.Loop
	slots chan struct{}

	workers    sync.WaitGroup
	runCtx     context.Context
	cancelRuns context.CancelFunc
}

// New validates cfg; nothing runs until Start.
func New(st Store, cfg Config) (*Dispatcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := &Dispatcher{store: st, cfg: cfg, slots: make(chan struct{}, cfg.Concurrency)}
	d.runCtx, d.cancelRuns = context.WithCancel(context.Background())
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
	return d.loop.Start(ctx)
}

// Wake asks for a dispatch round now; the scheduler calls it after an
// admission commits.
func (d *Dispatcher) Wake() { d.loop.Wake() }

// Stop starts nothing more, gives running commands half the stop timeout
// to finish, then kills their process groups and waits for their results
// to be recorded (cancelled), at most the stop timeout in all.
func (d *Dispatcher) Stop(ctx context.Context) error {
	deadline := time.Now().Add(d.cfg.StopTimeout)
	loopErr := d.loop.Stop(ctx)
	done := make(chan struct{})
	go func() {
		d.workers.Wait()
		close(done)
	}()
	grace := time.NewTimer(d.cfg.StopTimeout / 2)
	defer grace.Stop()
	select {
	case <-done:
		d.cancelRuns()
		return loopErr
	case <-grace.C:
	case <-ctx.Done():
	}
	d.cancelRuns()
	limit := time.NewTimer(time.Until(deadline))
	defer limit.Stop()
	select {
	case <-done:
		return loopErr
	case <-limit.C:
	case <-ctx.Done():
	}
	return fmt.Errorf("executor: %w after %s: commands were still being recorded", loop.ErrDrainTimeout, d.cfg.StopTimeout)
}

// round starts as many pending attempts as there are free slots. It asks
// for another round at once when it filled them all from a full page.
func (d *Dispatcher) round(ctx context.Context) (bool, error) {
	free := cap(d.slots) - len(d.slots)
	if free == 0 {
		return false, nil
	}
	pending, err := d.store.AttemptsPending(ctx, free)
	if err != nil {
		return false, err
	}
	started := 0
	for _, a := range pending {
		logPath := filepath.Join(d.cfg.LogDir, a.ID+".log")
		plan, planErr, err := d.store.AttemptStart(ctx, a.ID, d.cfg.Owner.ID, logPath)
		if qlerror.Is(err, qlerror.Conflict) {
			continue
		}
		if err != nil {
			return false, err
		}
		d.slots <- struct{}{}
		d.workers.Add(1)
		started++
		go d.work(a, plan, planErr, logPath)
	}
	return len(pending) == free && started > 0, nil
}

func (d *Dispatcher) work(a run.Attempt, plan task.Execution, planErr error, logPath string) {
	defer func() {
		<-d.slots
		d.workers.Done()
		d.Wake()
	}()
	res := d.execute(a, plan, planErr, logPath)
	if err := d.record(res); err != nil {
		d.cfg.OnError(fmt.Errorf("record result of attempt %s: %w", a.ID, err))
		return
	}
	if d.cfg.OnFinish != nil {
		res.RunID = a.RunID
		d.cfg.OnFinish(res)
	}
}

// record stores a result, retrying while the database is only unavailable
// (another process holding the write lock past the busy timeout): a result
// that is never recorded leaves its run running until the next restart
// declares it lost.
func (d *Dispatcher) record(res run.Attempt) error {
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	for {
		err := d.store.AttemptFinish(ctx, res)
		if err == nil || !qlerror.Is(err, qlerror.Unavailable) {
			return err
		}
		retry := time.NewTimer(recordRetry)
		select {
		case <-ctx.Done():
			retry.Stop()
			return err
		case <-retry.C:
		}
	}
}

// execute runs one attempt and returns its result for the store.
func (d *Dispatcher) execute(a run.Attempt, plan task.Execution, planErr error, logPath string) run.Attempt {
	out := run.Attempt{ID: a.ID, State: run.AttemptFailed}
	log, err := createLog(logPath, d.cfg.LogCapBytes)
	if err != nil {
		d.cfg.OnError(fmt.Errorf("attempt %s: create log %s: %w", a.ID, logPath, err))
		out.ErrorCode = ErrorCodeLogUnwritable
		return out
	}
	secrets, secretErr := d.resolve(plan, planErr)
	mask := newRedactor(log, values(secrets))
	var res result
	switch {
	case planErr != nil:
		fmt.Fprintf(mask, "qinglong: the execution plan failed verification and was not run: %v\n", planErr)
		res = result{state: run.AttemptFailed, code: ErrorCodePlanInvalid}
	case secretErr != nil:
		fmt.Fprintf(mask, "qinglong: the command was not started: %v\n", secretErr)
		res = result{state: run.AttemptFailed, code: ErrorCodeSecret}
	default:
		env := environment(d.cfg.BaseEnv, a, plan.Command, secrets)
		res = runProcess(d.runCtx, plan.Command, env, mask, func(pid int) {
			ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
			defer cancel()
			if err := d.store.AttemptRunning(ctx, a.ID, pid); err != nil {
				d.cfg.OnError(fmt.Errorf("record start of attempt %s: %w", a.ID, err))
			}
		})
	}
	flushErr := mask.Flush()
	if err := log.Close(); err != nil || flushErr != nil {
		d.cfg.OnError(fmt.Errorf("attempt %s: write log %s: %v %v", a.ID, logPath, flushErr, err))
	}
	out.State, out.ExitCode, out.ErrorCode = res.state, res.exitCode, res.code
	out.LogBytes, out.LogTruncated = log.total, log.truncated
	return out
}

func (d *Dispatcher) resolve(plan task.Execution, planErr error) (map[string]string, error) {
	if planErr != nil {
		return nil, nil
	}
	var refs []string
	for _, e := range plan.Command.Env {
		if e.SecretRef != "" {
			refs = append(refs, e.SecretRef)
		}
	}
	return d.cfg.Secrets.Resolve(refs)
}

func values(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// environment is the child's whole environment: the base, the attempt's
// identity, then the task's variables (later entries win in os/exec).
func environment(base []string, a run.Attempt, c task.Command, secrets map[string]string) []string {
	env := append([]string(nil), base...)
	env = append(env, "QL_RUN_ID="+a.RunID, "QL_ATTEMPT_ID="+a.ID)
	for _, e := range c.Env {
		v := e.Value
		if e.SecretRef != "" {
			v = secrets[e.SecretRef]
		}
		env = append(env, e.Name+"="+v)
	}
	return env
}
