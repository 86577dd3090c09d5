package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/worker/journal"
)

// Pacing of one attempt.
const (
	// chunkSize is the largest log chunk sent.
	chunkSize = workerproto.MaxLogChunk
	// logFlushEvery is the least time between two sends of a command's
	// output that does not fill a chunk, while the worker runs few
	// commands: the first line after a quiet spell is sent at once.
	logFlushEvery = 250 * time.Millisecond
	// logFlushesPerSecond bounds the flushes of all the worker's commands
	// together: past logFlushEvery × this many commands, each flushes less
	// often. A replica takes 200 requests a second from one worker
	// (workeringress.DefaultRate) and every chunk is a transaction: 64
	// commands printing all the time flushed 256 times a second and were
	// refused 429, and 256 would flush 1024.
	logFlushesPerSecond = 100
	// outputStallAfter is how long a command's output may go untaken
	// before the worker drops what does not fit in its buffer rather than
	// keep the command's writes waiting: counted, since a replica last
	// took a chunk, from the start of the first send no replica answered
	// or from the first write that found the buffer full, whichever came
	// first, so a send that hangs until its deadline (the lease's kill
	// point, or 10 s) holds no write longer. One unanswered send is no
	// outage: a busy replica may miss one, though it takes the next chunk
	// at once.
	outputStallAfter = 5 * time.Second
	// minKillMargin is the least time before its local lease ends at which
	// a command is killed: SIGKILL and the wait for the group to vanish
	// must fit before the replica may declare the attempt lost.
	minKillMargin = 100 * time.Millisecond
)

// Error codes a worker reports on a completion (besides process's).
const (
	ErrorCodeSecret      = "secret_unavailable"
	ErrorCodePlanInvalid = "execution_revision_invalid"
	ErrorCodeJournal     = "journal_unwritable"
	// ErrorCodeLaunchedBefore: this worker's journal records that it
	// started the attempt before, so it was not started again.
	ErrorCodeLaunchedBefore = "attempt_launched_before"
	ErrorCodeStopped        = workerproto.StopWorkerShutdown
	// ErrorCodeDigestMismatch: the granted command does not match the
	// digest the control plane recorded for it, so it was not run.
	ErrorCodeDigestMismatch = "grant_digest_mismatch"
)

// stopCause is a stop reply's reason as the cause of the command's end;
// its words are the ones the executor of a standalone server gives the
// same end, in the line that ends the command's log.
type stopCause struct {
	reason string
	// timeout is the command's, named when the reason is its timeout.
	timeout time.Duration
}

func (s stopCause) Error() string {
	switch s.reason {
	case workerproto.StopCancelled:
		return process.CancelAskedCause.Error()
	case workerproto.StopTimedOut:
		return process.TimeoutCause(s.timeout)
	}
	return "stop requested: " + s.reason
}

// attempt is one grant being run. Its own goroutine (run) sends its
// start, output and completion; once the command may run, its renewer
// (renewals) sends its renewals beside it, so neither waits for the
// other. The lease fields are guarded by mu from then on; stop and
// terminate may be called from any goroutine.
type attempt struct {
	w     *worker
	grant workerproto.Grant

	mu    sync.Mutex
	lease workerproto.Lease
	// session is the session the grant was pulled under: the state a
	// start or renewal reply carries is that session's.
	session string
	// leaseLen is the run lease's length; killAt is when this worker's
	// copy of the lease is about to end (counted from the send of the
	// request that granted or renewed it, less the kill margin).
	leaseLen  time.Duration
	killAt    time.Time
	nextRenew time.Time
	// leaseEnd is when this worker's copy of the lease ends, kill margin
	// included.
	leaseEnd time.Time
	// stopReason is the reason of the stop reply heard, if any.
	stopReason string
	// timeout is the granted command's, once it is read.
	timeout time.Duration

	ctx      context.Context
	cancel   context.CancelCauseFunc
	hard     chan struct{}
	hardOnce sync.Once
	// renewNow asks the renewer to renew now: a pull or watch reply said
	// a stop was asked of it.
	renewNow chan struct{}
	// renewalEnded receives, once, why the renewer stopped for good: the
	// replica refused a renewal or answered the attempt over.
	renewalEnded chan renewalEnd
	// over: the attempt reports nothing more (terminate was called).
	over atomic.Bool
	// ranBefore: the journal refused the launch because this worker
	// launched the attempt before; its record ended then, so its end now
	// is not journaled again.
	ranBefore atomic.Bool
	// runningJournaled is closed once the spawned process's pid is
	// journaled or given up on (nil: nothing was spawned). It is set
	// before the command's result is sent, so whoever read the result
	// reads it.
	runningJournaled chan struct{}

	out    *output
	offset int64
	// logClosed: the replica reached its cap; nothing more is sent.
	logClosed bool
	// unanswered is the length of the last chunk sent that got no answer
	// (0: none): the replica may have stored it, and takes it again only
	// as the same bytes at the same offset, so it is sent again as it was.
	unanswered int
	// unansweredSince is when the first of the sends that went
	// unanswered since a replica last took a chunk started (zero: the
	// last send was taken): output stalls outputStallAfter later.
	unansweredSince time.Time
}

func newAttempt(w *worker, g workerproto.Grant, token, session string, sent time.Time) *attempt {
	a := &attempt{w: w, grant: g, lease: workerproto.Lease{AttemptID: g.AttemptID, Token: token, LeaseVersion: g.LeaseVersion},
		session: session, hard: make(chan struct{}), renewNow: make(chan struct{}, 1), renewalEnded: make(chan renewalEnd, 1)}
	a.ctx, a.cancel = context.WithCancelCause(context.Background())
	a.extend(sent, g.LeaseMs)
	return a
}

// extend sets the local lease after a grant or renewal sent at sent.
func (a *attempt) extend(sent time.Time, leaseMs int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.leaseLen = time.Duration(leaseMs) * time.Millisecond
	margin := max(a.leaseLen/6, minKillMargin)
	a.killAt = sent.Add(a.leaseLen - margin)
	a.leaseEnd = sent.Add(a.leaseLen)
	a.nextRenew = sent.Add(a.leaseLen / 3)
}

// stop ends the command gracefully: SIGTERM, the task's kill grace, then
// SIGKILL.
func (a *attempt) stop(cause error) { a.cancel(cause) }

// renewSoon has the attempt renew its lease at once; it never blocks.
func (a *attempt) renewSoon() {
	select {
	case a.renewNow <- struct{}{}:
	default:
	}
}

// terminate kills the command at once (SIGTERM then SIGKILL without
// grace) and makes the attempt report nothing more.
func (a *attempt) terminate() {
	a.over.Store(true)
	a.cancel(process.DeclaredOverCause)
	a.hardOnce.Do(func() { close(a.hard) })
}

func (a *attempt) logAttrs(attrs ...any) []any {
	return append([]any{"attempt_id", a.grant.AttemptID, "run_id", a.grant.RunID, "attempt", a.grant.AttemptNumber, "project", a.grant.Project, "task", a.grant.Task}, attrs...)
}

func (a *attempt) journalDone(outcome string) {
	if a.ranBefore.Load() {
		return
	}
	if a.runningJournaled != nil {
		// The end of the attempt follows its pid in the journal.
		<-a.runningJournaled
	}
	err := a.w.persist(context.Background(), a.w.untilStopped, func(ctx context.Context) error {
		return a.w.journal.Done(ctx, a.grant.AttemptID, outcome)
	})
	if err != nil {
		a.w.log.Error("could not journal the end of an attempt: the next start of the worker on this data directory finds it unfinished, ends what may be left of its command and reports it (the replica keeps any result it already has)",
			a.logAttrs("code", "journal_failed", "error", err.Error())...)
	}
}

// run takes the grant through start, spawn, renewals, output and
// completion.
func (a *attempt) run() {
	if a.w.stopping() || a.ctx.Err() != nil {
		// Not started yet, and this worker starts nothing more: the grant
		// goes back to the queue for another worker now.
		a.w.giveBack(a.grant, a.lease.Token, workerproto.GiveBackStopping)
		a.journalDone("given_back")
		return
	}
	if !a.startACK() {
		return
	}
	cmd, decodeErr := task.DecodeCommand(a.grant.Command)
	a.timeout = time.Duration(cmd.TimeoutMs) * time.Millisecond
	var verifyErr error
	if decodeErr == nil {
		verifyErr = verifyGrant(a.grant, cmd)
	}
	if decodeErr == nil && verifyErr == nil {
		// The task's command with its project's env, the task's own
		// winning: its secrets are checked and resolved as the task's.
		var projectEnv []task.EnvVar
		projectEnv, decodeErr = task.DecodeEnv(a.grant.ProjectEnv)
		cmd = cmd.WithProjectEnv(projectEnv)
	}
	var secrets map[string]string
	var secretErr error
	if decodeErr == nil && verifyErr == nil {
		refs := process.SecretRefs(cmd)
		switch secretErr = process.CheckSecretProjects(a.grant.Project, refs); {
		case secretErr != nil:
		case len(refs) > 0 && a.w.secrets.Path == "":
			secretErr = a.noSecretsFile(refs[0])
		default:
			secrets, secretErr = a.secrets().Resolve(refs)
		}
	}
	a.out = newOutput(a.w.logLimit(), a.outputDropped)
	mask := process.NewRedactor(a.out, process.Values(secrets))
	done := make(chan process.Result, 1)
	switch stopReason := a.stopped(); {
	case stopReason != "":
		done <- process.Result{State: run.AttemptCancelled, Code: process.ErrorCodeStopped, Cause: stopCause{stopReason, a.timeout}}
	case decodeErr != nil:
		fmt.Fprintf(a.out, "qinglong: the worker could not read the execution revision and did not run it: %v\n", decodeErr)
		done <- process.Result{State: run.AttemptFailed, Code: ErrorCodePlanInvalid}
	case verifyErr != nil:
		a.w.log.Error("the granted command does not match its digest: it is not run", a.logAttrs("code", ErrorCodeDigestMismatch, "execution_id", a.grant.ExecutionID, "error", verifyErr.Error())...)
		fmt.Fprintf(a.out, "qinglong: %v\n", verifyErr)
		done <- process.Result{State: run.AttemptFailed, Code: ErrorCodeDigestMismatch, Cause: verifyErr}
	case secretErr != nil:
		fmt.Fprintf(a.out, "qinglong: the command was not started: %v\n", secretErr)
		done <- process.Result{State: run.AttemptFailed, Code: ErrorCodeSecret}
	case a.ctx.Err() != nil:
		// Stopped (a drain ran out of time, or the worker was replaced)
		// before anything was spawned: nothing is.
		done <- process.Result{State: run.AttemptCancelled, Code: process.ErrorCodeStopped, Cause: context.Cause(a.ctx)}
	default:
		err := a.launching()
		if errors.Is(err, journal.ErrLaunchedBefore) {
			a.ranBefore.Store(true)
			a.w.log.Warn("the replica offered an attempt this worker started before (its database lost the start, typically restored from a backup taken before it): it is not started a second time",
				a.logAttrs("code", ErrorCodeLaunchedBefore)...)
			fmt.Fprintf(a.out, "qinglong: the command was not started: %v\n", journal.ErrLaunchedBefore)
			done <- process.Result{State: run.AttemptFailed, Code: ErrorCodeLaunchedBefore}
			break
		}
		if err != nil && a.ctx.Err() != nil {
			done <- process.Result{State: run.AttemptCancelled, Code: process.ErrorCodeStopped, Cause: context.Cause(a.ctx)}
			break
		}
		if err != nil {
			why := err.Error()
			if journal.Refused(err) {
				why = a.w.journal.Why(err)
			}
			a.w.log.Error("could not journal the launch: the command is not started", a.logAttrs("code", "journal_failed", "error", err.Error())...)
			fmt.Fprintf(a.out, "qinglong: the worker could not write its journal and did not start the command: %s\n", why)
			done <- process.Result{State: run.AttemptFailed, Code: ErrorCodeJournal}
			break
		}
		go a.spawn(cmd, secrets, mask, done)
	}
	a.loop(done, mask)
}

// errDigestMismatch starts the reason a grant is refused: what was wrong
// and where to look.
const errDigestMismatch = "grant digest mismatch: the command received does not match the revision the control plane recorded, so it was not run; " +
	"check for a proxy or middlebox that alters bodies between this worker and the replica"

// verifyGrant recomputes the execution digest of the granted command from
// the ids the grant names and compares it with the digest the control
// plane recorded when the revision was published. Bytes altered on the
// way (corruption, a proxy rewriting bodies, a bug) never run.
func verifyGrant(g workerproto.Grant, cmd task.Command) error {
	if g.ProjectID == "" || g.TaskID == "" {
		return fmt.Errorf("%s (the replica sent no project and task id to verify against: upgrade the replicas before their workers)", errDigestMismatch)
	}
	rev, contentDigest, err := task.ParseExecutionID(g.ExecutionID)
	if err != nil {
		return fmt.Errorf("%s (%v)", errDigestMismatch, err)
	}
	e := task.Execution{ID: g.ExecutionID, ProjectID: g.ProjectID, TaskID: g.TaskID, TaskRevision: rev, TaskContentDigest: contentDigest,
		Executor: task.RemoteWorker, Command: cmd, Digest: g.Digest}
	if err := e.Verify(rev, contentDigest, task.RemoteWorker); err != nil {
		return fmt.Errorf("%s (%v)", errDigestMismatch, err)
	}
	return nil
}

// launching journals the launch, trying a launch the journal refuses for
// now (its disk full) again until the attempt's first renewal is due: the
// attempt then fails, reported while its lease holds, rather than hold
// its Run past the lease. A stop of the attempt ends the wait too.
func (a *attempt) launching() error {
	giveUp := func() bool { return a.ctx.Err() != nil || !time.Now().Before(a.renewAt()) }
	return a.w.persist(context.Background(), giveUp, func(ctx context.Context) error {
		return a.w.journal.Launching(ctx, a.grant.AttemptID)
	})
}

// spawn runs the command; the journal gets `running` once its process
// exists. The start instant is taken before the spawn, as recovery's
// start-time check of the process group expects.
func (a *attempt) spawn(cmd task.Command, secrets map[string]string, mask *process.Redactor, done chan<- process.Result) {
	spec := process.Spec{Identity: identity(a.grant), Command: cmd, BaseEnv: a.w.cfg.BaseEnv, Secrets: secrets, DefaultRunAs: a.w.cfg.RunAs}
	startedAt := time.Now().UnixMilli()
	res := process.Run(a.ctx, a.hard, spec, mask, func(pid int) {
		// Written aside: the callback holds up the command's timeout and
		// stop, and a full disk may refuse the write for long.
		journaled := make(chan struct{})
		a.runningJournaled = journaled
		go func() {
			defer close(journaled)
			err := a.w.persist(context.Background(), a.w.untilStopped, func(ctx context.Context) error {
				return a.w.journal.Running(ctx, a.grant.AttemptID, pid, startedAt)
			})
			if err != nil {
				a.w.log.Error("could not journal the started process", a.logAttrs("code", "journal_failed", "pid", pid, "error", err.Error())...)
			}
		}()
		a.w.log.Info("command started", a.logAttrs("code", "attempt_started", "pid", pid)...)
	})
	if res.CleanupErr != nil {
		a.w.log.Warn("could not remove the attempt's working directory", a.logAttrs("code", "workdir_cleanup_failed", "error", res.CleanupErr.Error())...)
	}
	done <- res
}

// startACK acknowledges the grant; false when the attempt is over here.
func (a *attempt) startACK() bool {
	sent := time.Now()
	ctx, cancel := context.WithDeadline(a.w.reqCtx, a.killAt)
	rep, err := a.w.client.Start(ctx, workerproto.StartRequest{Lease: a.lease})
	cancel()
	a.answered(sent, err)
	if err != nil {
		a.w.log.Warn("the start was not acknowledged; the grant is left to its lease, or to this worker's session end, which gives it back", a.logAttrs("code", "start_failed", "error", err.Error())...)
		a.journalDone("start_failed")
		return false
	}
	a.sessionState(rep)
	switch rep.Reply {
	case workerproto.ReplyTerminal:
		a.w.count1(func(s *Summary) { s.Terminal++ })
		a.journalDone("terminal")
		return false
	case workerproto.ReplyStop:
		a.mu.Lock()
		a.stopReason = rep.StopReason
		a.mu.Unlock()
	}
	a.setVersion(rep.LeaseVersion)
	a.extend(sent, rep.LeaseMs)
	return true
}

// setVersion takes the lease version a start or renewal answered,
// journaling it first: a restarted worker reports an attempt it finds
// unfinished under the version the journal holds, which must then be the
// replica's or the one just before it (a renewal whose reply was lost).
// A version that could not be journaled only costs that report: the
// replica refuses it as stale, and the attempt waits for its lease.
func (a *attempt) setVersion(version int64) {
	if lease, _ := a.leaseNow(); version != lease.LeaseVersion {
		err := a.w.persist(context.Background(), once, func(ctx context.Context) error {
			return a.w.journal.Renewed(ctx, a.grant.AttemptID, version)
		})
		// A refusal is the journal's spell, said once for all (persist).
		if err != nil && !journal.Refused(err) {
			a.w.log.Error("could not journal the lease version", a.logAttrs("code", "journal_failed", "error", err.Error())...)
		}
	}
	a.mu.Lock()
	a.lease.LeaseVersion = version
	a.mu.Unlock()
}

// leaseNow is the lease as the last start or renewal answered it, and
// when this worker's copy of it is about to end (the kill point).
func (a *attempt) leaseNow() (workerproto.Lease, time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lease, a.killAt
}

// stopped is the reason of the stop reply heard, "" if none.
func (a *attempt) stopped() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stopReason
}

// loop sends the attempt's output and completion until it is complete,
// over, or its lease is lost, its renewer renewing the lease meanwhile.
func (a *attempt) loop(done <-chan process.Result, mask *process.Redactor) {
	renewing, stopRenewing := context.WithCancel(a.w.reqCtx)
	renewerDone := make(chan struct{})
	go func() {
		defer close(renewerDone)
		a.renewals(renewing)
	}()
	defer func() {
		stopRenewing()
		<-renewerDone
	}()
	var res *process.Result
	// ended is when the command's result came, on the monotonic clock:
	// its completion says how long before each send that was.
	var ended time.Time
	// flushed is when output was last sent. Output waiting is sent once
	// flushEvery has passed since then: at once when a command prints
	// after a quiet spell, instead of at the next tick of a fixed cadence
	// (up to 0.25 s later), and no more often than that cadence while it
	// keeps printing, so the worker's commands together still flush at
	// most logFlushesPerSecond times a second. Output is sent only from
	// the switch below, after the lease is checked: a send from the
	// select itself, woken late on a busy machine, could start after the
	// kill point.
	var flushed time.Time
	// renewal is why the renewer stopped for good, once it did.
	var renewal *renewalEnd
	for {
		now := time.Now()
		flushAt := flushed.Add(a.w.flushEvery())
		_, killAt := a.leaseNow()
		if renewal == nil {
			select {
			case end := <-a.renewalEnded:
				renewal = &end
			default:
			}
		}
		switch {
		case a.over.Load():
			a.wait(done, res)
			a.w.count1(func(s *Summary) { s.Killed++ })
			a.journalDone("terminal")
			return
		case renewal != nil:
			a.renewalOver(*renewal)
			a.wait(done, res)
			a.journalDone("terminal")
			return
		case !now.Before(killAt):
			a.leaseLost(done, res, mask)
			return
		case a.sendNow() || (a.pending() > 0 && (res != nil || !now.Before(flushAt))):
			flushed = now
			if !a.sendLog() {
				a.wait(done, res)
				a.journalDone("log_refused")
				return
			}
			continue
		case res != nil:
			a.complete(*res, ended)
			return
		}
		wakeAt := killAt
		if a.pending() > 0 {
			wakeAt = earliest(wakeAt, flushAt)
		}
		wake := time.NewTimer(time.Until(wakeAt))
		select {
		case r := <-done:
			ended = time.Now()
			if err := mask.Flush(); err != nil {
				a.w.log.Error("could not flush the output", a.logAttrs("code", "output_failed", "error", err.Error())...)
			}
			a.out.finish()
			res = &r
		case <-a.out.full:
		case <-a.out.wrote:
		case end := <-a.renewalEnded:
			renewal = &end
		case <-wake.C:
		}
		wake.Stop()
	}
}

// renewalEnd is why the renewer stopped for good: the replica refused a
// renewal (refused), or answered that the attempt is over here (nil).
type renewalEnd struct{ refused error }

// renewals renews the lease whenever a renewal is due, or at once when
// asked (renewSoon), until ctx ends, this worker's copy of the lease is
// over, or a renewal is refused or answered terminal, which it tells on
// renewalEnded. It runs beside the attempt's goroutine: a log chunk or a
// completion a slow replica takes its time over never holds a renewal
// back, nor does a renewal hold them.
func (a *attempt) renewals(ctx context.Context) {
	for {
		if _, killAt := a.leaseNow(); !time.Now().Before(killAt) {
			// The attempt's goroutine kills the command (leaseLost).
			return
		}
		due := time.NewTimer(time.Until(a.renewAt()))
		select {
		case <-ctx.Done():
			due.Stop()
			return
		case <-a.renewNow:
			due.Stop()
			a.mu.Lock()
			// A stop already heard needs no second renewal to be heard.
			if a.stopReason == "" {
				a.nextRenew = time.Now()
			}
			a.mu.Unlock()
			continue
		case <-due.C:
		}
		if end, over := a.renew(ctx); over {
			a.renewalEnded <- end
			return
		}
	}
}

// renewalOver says why the lease is over here and counts it: the
// attempt's goroutine says it, once it acts on it, so a renewal answered
// terminal just after the completion ended the attempt says nothing.
func (a *attempt) renewalOver(end renewalEnd) {
	if end.refused != nil {
		a.w.log.Warn("the renewal was refused: the command is killed", a.logAttrs("code", "attempt_renew_refused", "error", end.refused.Error())...)
		a.refused(end.refused)
	} else {
		a.w.log.Info("the replica declared the attempt over: the command is killed", a.logAttrs("code", "attempt_terminal")...)
	}
	a.w.count1(func(s *Summary) { s.Terminal++ })
}

// flushEvery is the least time between two flushes of one command's
// output while the worker runs as many as it does now: logFlushEvery, or
// longer once all of them together would flush more than
// logFlushesPerSecond times a second.
func (w *worker) flushEvery() time.Duration {
	return max(w.cfg.logFlushEvery, time.Duration(w.count())*time.Second/time.Duration(w.cfg.logFlushesPerSecond))
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func (a *attempt) pending() int {
	if a.logClosed {
		return 0
	}
	return a.out.pending()
}

func (a *attempt) sendNow() bool {
	return !a.logClosed && a.out.sendNow()
}

// outputDropped logs a gap in the command's output: n bytes dropped while
// no replica took the worker's log chunks and its buffer was full.
func (a *attempt) outputDropped(n int64) {
	a.w.log.Warn("output was dropped: no replica took the command's output while the worker's buffer was full; the Run's log has a line saying how much, where the gap is",
		a.logAttrs("code", "attempt_output_dropped", "dropped_bytes", n)...)
}

// wait kills the command at once if it still runs and waits for it.
func (a *attempt) wait(done <-chan process.Result, res *process.Result) {
	if res != nil {
		return
	}
	// Nothing more is sent: a write waiting for room would hold the
	// command's end, and with it done, for ever.
	a.out.close()
	a.terminate()
	<-done
}

// leaseLost kills the command: this worker's copy of the lease is about
// to end, and after it the replica may give the Run to another worker. The
// output still waiting, the line saying why the command was stopped last,
// is offered to the replica once in the kill margin: its log then says
// why the command ended, if the replica can still be reached.
//
// The loop wakes before the lease ends (by the kill margin), so a worker
// that finds its copy of the lease already over while the command still
// runs did not run meanwhile: it was frozen or suspended (SIGSTOP, a
// cgroup freezer, a paused VM, a swap storm). It could not kill the
// command in time, and the replica may already have run the attempt again
// elsewhere: that overlap is logged for what it is, not as a lost lease.
func (a *attempt) leaseLost(done <-chan process.Result, res *process.Result, mask *process.Redactor) {
	a.mu.Lock()
	leaseEnd := a.leaseEnd
	a.mu.Unlock()
	if past := time.Since(leaseEnd); res == nil && past > 0 {
		a.w.log.Error("this worker was frozen or suspended past the lease: the command ran on after its lease, and the replica may have run the attempt again meanwhile; the command is killed now and the attempt not reported again",
			a.logAttrs("code", "attempt_outlived_lease", "past_lease_ms", past.Milliseconds())...)
	} else {
		a.w.log.Warn("the lease could not be renewed in time: the command is killed and the attempt not reported again", a.logAttrs("code", "attempt_lease_lost")...)
	}
	if res == nil {
		// Nothing is sent until the command ended: its output past the
		// buffer is dropped rather than wait for a send.
		a.out.stall()
		a.cancel(process.LeaseLostCause)
		a.hardOnce.Do(func() { close(a.hard) })
		<-done
		if err := mask.Flush(); err != nil {
			a.w.log.Error("could not flush the output", a.logAttrs("code", "output_failed", "error", err.Error())...)
		}
		a.out.finish()
		for a.pending() > 0 && time.Now().Before(leaseEnd) {
			if a.logChunk(leaseEnd) != nil {
				break
			}
		}
	}
	a.w.count1(func(s *Summary) { s.LeaseLost++ })
	a.journalDone("lease_lost")
}

// renewAt is when the next renewal is sent: minLeaseTry before it is
// due, so that a renewal woken a little late still goes out in its time.
func (a *attempt) renewAt() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.nextRenew.Add(-minLeaseTry)
}

// renew extends the lease, its request bounded by ctx and the lease's
// kill point; over when the attempt is over here, end saying why.
func (a *attempt) renew(ctx context.Context) (end renewalEnd, over bool) {
	sent := time.Now()
	lease, killAt := a.leaseNow()
	ctx, cancel := context.WithDeadline(ctx, killAt)
	rep, err := a.w.client.Renew(ctx, workerproto.RenewRequest{Lease: lease})
	cancel()
	if errors.Is(err, context.Canceled) {
		// The attempt's goroutine stopped the renewer: the attempt is
		// complete or over here; the send says nothing of the replicas.
		return renewalEnd{}, false
	}
	a.answered(sent, err)
	if err != nil {
		if Code(err) == "" {
			// Unreachable until the lease clock: the loop kills at killAt.
			return renewalEnd{}, false
		}
		return renewalEnd{refused: err}, true
	}
	a.sessionState(rep)
	switch rep.Reply {
	case workerproto.ReplyTerminal:
		return renewalEnd{}, true
	case workerproto.ReplyStop:
		a.mu.Lock()
		first := a.stopReason == ""
		if first {
			a.stopReason = rep.StopReason
		}
		a.mu.Unlock()
		if first {
			a.w.log.Info("stop requested: ending the command", a.logAttrs("code", "attempt_stop", "reason", rep.StopReason)...)
			a.stop(stopCause{rep.StopReason, a.timeout})
		}
	}
	a.setVersion(rep.LeaseVersion)
	a.extend(sent, rep.LeaseMs)
	return renewalEnd{}, false
}

// answered tells the worker's pacer how long a start or renewal sent at
// sent took, under the run lease. A refusal is an answer; an error
// without a code is none (no replica answered in time), unless the worker
// itself gave up the request (replaced, credential refused), or was
// itself stalled while it was under way (frozen, suspended), or the lease
// its request is bounded by (killAt, which start and renew send under) had
// less than a send's least time left when it was sent: a worker frozen
// past a grant's lease sends its start on waking, after the stall was
// said, and no replica could answer that. Neither tells anything of the
// replicas.
func (a *attempt) answered(sent time.Time, err error) {
	if a.over.Load() || a.w.reqCtx.Err() != nil || a.w.client.stalledSince(sent) {
		return
	}
	a.mu.Lock()
	killAt, leaseLen := a.killAt, a.leaseLen
	a.mu.Unlock()
	if err != nil && killAt.Sub(sent) < minLeaseTry {
		return
	}
	a.w.answered(time.Since(sent), a.w.runLeaseOr(leaseLen), err != nil && Code(err) == "")
}

// sessionState acts on the state of the attempt's session a start or
// renewal reply carries, as on a heartbeat's: a worker replaced or drained
// hears it at its next renewal, not only at its next heartbeat. A replica
// older than the field sends none.
func (a *attempt) sessionState(rep workerproto.LeaseReply) {
	if rep.SessionState != "" {
		a.w.onSessionState(a.session, rep.SessionState)
	}
}

// refused acts on a refusal of the attempt's request: a refused
// credential stops the worker as the refusal of a heartbeat or a pull
// does. A draining worker no longer pulls, and keeps its draining watch
// only where the replica takes it, so an attempt's request may be the
// first to hear of a revocation.
func (a *attempt) refused(err error) {
	if Code(err) == workerproto.CodeUnauthenticated {
		a.w.revoked()
	}
}

// sendLog sends the next chunk at the offset the replica holds, the send
// bounded by the lease's kill point alone (a renewal does not wait for
// it); false when the replica refused it for good.
func (a *attempt) sendLog() bool {
	_, killAt := a.leaseNow()
	err := a.logChunk(killAt)
	if err != nil && Code(err) != "" {
		a.w.log.Warn("a log chunk was refused: the command is killed", a.logAttrs("code", "attempt_log_refused", "offset", a.offset, "error", err.Error())...)
		a.refused(err)
		return false
	}
	// Unsent, it is sent again.
	return true
}

// logChunk sends the next chunk at the offset the replica holds, the
// request bounded by deadline.
func (a *attempt) logChunk(deadline time.Time) error {
	data := a.out.peek(cmp.Or(a.unanswered, chunkSize))
	sent := time.Now()
	// The lease as last renewed: a renewal may commit while the chunk is
	// on its way, and the replica takes a chunk of its holder under the
	// version before it.
	lease, _ := a.leaseNow()
	ctx, cancel := context.WithDeadline(a.w.reqCtx, deadline)
	rep, err := a.w.client.Log(ctx, workerproto.LogRequest{Lease: lease, Offset: a.offset, Data: data})
	cancel()
	if err != nil {
		if Code(err) == "" {
			// Output written since must not be appended to it: the
			// replica would refuse the chunk as neither the bytes it holds
			// next nor a replay of the one it stored.
			a.unanswered = len(data)
			if a.unansweredSince.IsZero() {
				a.unansweredSince = sent
			}
			if time.Since(a.unansweredSince) >= outputStallAfter {
				a.out.stall()
			}
		}
		return err
	}
	a.unanswered, a.unansweredSince = 0, time.Time{}
	a.out.sent(len(data))
	a.offset = rep.LogBytes
	if rep.Truncated {
		a.logClosed = true
		a.out.close()
	}
	return nil
}

// complete reports res, whose command ended at ended, until the replica
// records it or the lease is lost. Output still unsent and replicas that
// do not answer can delay the report; each send says how long ago the
// command ended, so the replica records that end, not the report's. The
// renewer keeps the lease meanwhile, so a send is given all the time up
// to the lease's kill point (at most 10 s a try), and one cut short is
// sent again under the lease renewed since.
func (a *attempt) complete(res process.Result, ended time.Time) {
	req := workerproto.CompleteRequest{LogBytes: a.offset}
	req.Outcome, req.ExitCode, req.ErrorCode = completion(res, a.stopped())
	switch {
	case res.Code == ErrorCodeDigestMismatch && res.Cause != nil:
		req.ErrorMessage = res.Cause.Error()
	case res.State == run.AttemptFailed && req.Outcome == workerproto.OutcomeSpawnFailed:
		req.ErrorMessage = run.NotStartedMessage
	case req.Outcome == workerproto.OutcomeSignaled && res.Signal > 0:
		req.Signal, req.ErrorMessage = res.Signal, run.SignalMessage(res.Signal)
	case req.ErrorCode == ErrorCodeStopped:
		req.ErrorMessage = a.w.stoppedMessage()
	}
	for {
		if a.over.Load() {
			a.w.count1(func(s *Summary) { s.Killed++ })
			a.journalDone("terminal")
			return
		}
		select {
		case end := <-a.renewalEnded:
			a.renewalOver(end)
			a.journalDone("terminal")
			return
		default:
		}
		lease, killAt := a.leaseNow()
		if !time.Now().Before(killAt) {
			a.leaseLost(nil, &res, nil)
			return
		}
		req.Lease = lease
		ctx, cancel := context.WithDeadline(a.w.reqCtx, killAt)
		rep, err := a.w.client.Complete(ctx, req, ended)
		cancel()
		if err == nil {
			attrs := []any{"code", "attempt_completed", "outcome", req.Outcome}
			if req.ExitCode != nil {
				// The number, not the pointer: a text log would print its address.
				attrs = append(attrs, "exit_code", *req.ExitCode)
			}
			attrs = append(attrs, "error_code", req.ErrorCode, "attempt_state", rep.AttemptState, "run_state", rep.RunState, "log_bytes", req.LogBytes)
			a.w.log.Info("attempt complete", a.logAttrs(attrs...)...)
			a.w.count1(func(s *Summary) {
				s.Completed++
				if req.Outcome == workerproto.OutcomeStopped {
					s.Stopped++
				}
			})
			a.journalDone(req.Outcome)
			return
		}
		if Code(err) == workerproto.CodeInvalid && (req.Signal != 0 || !ended.IsZero()) {
			// A replica older than the signal field or the end's, which
			// it refuses as unknown, gets the report without both: the
			// message still names the signal, and the end is when the
			// replica accepts the report, as before the fields.
			req.Signal, ended = 0, time.Time{}
			continue
		}
		if Code(err) != "" {
			a.w.log.Warn("the completion was refused", a.logAttrs("code", "attempt_complete_refused", "error", err.Error())...)
			a.refused(err)
			a.journalDone("complete_refused")
			return
		}
	}
}

// completion maps how the command ended to the reported outcome.
func completion(res process.Result, stopReason string) (outcome string, exit *int64, code string) {
	switch {
	case res.Code == process.ErrorCodeSpawnFailed || res.Code == process.ErrorCodeRunAs || res.Code == process.ErrorCodeWorkDir ||
		res.Code == ErrorCodeSecret || res.Code == ErrorCodePlanInvalid || res.Code == ErrorCodeJournal || res.Code == ErrorCodeLaunchedBefore ||
		res.Code == ErrorCodeDigestMismatch:
		return workerproto.OutcomeSpawnFailed, nil, res.Code
	case res.State == run.AttemptCancelled:
		var sc stopCause
		if errors.As(res.Cause, &sc) || stopReason != "" {
			return workerproto.OutcomeStopped, nil, stopReason
		}
		return workerproto.OutcomeStopped, nil, ErrorCodeStopped
	case res.State == run.AttemptTimedOut:
		return workerproto.OutcomeStopped, nil, workerproto.StopTimedOut
	case res.Code == process.ErrorCodeSignaled:
		return workerproto.OutcomeSignaled, nil, res.Code
	}
	return workerproto.OutcomeExited, res.ExitCode, res.Code
}

// identity is what the grant's command is told about itself: the same
// variables the single node's executor gives its commands.
func identity(g workerproto.Grant) run.Identity {
	return run.Identity{RunID: g.RunID, AttemptID: g.AttemptID, AttemptNumber: int64(g.AttemptNumber), Project: g.Project,
		Trigger: g.Trigger, Task: g.Task, ScheduledForMs: g.ScheduledForMs, DueAtMs: g.DueAtMs, Origin: run.Origin(g.Origin)}
}
