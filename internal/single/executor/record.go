package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/qinglong/qinglong/internal/core/loop"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// start is what the dispatcher knows of an attempt's command once it
// exists: its pid, and whether the store has yet to take its start.
type start struct {
	pid        int
	unrecorded bool
	// spawned ends the attempt's pass of the dispatcher's gate.
	spawned func()
}

// record stores an attempt's result, first its start when the store did not
// take it as the command started: the attempt is then still starting,
// which a success cannot leave. finished is the state the store reported
// it finished the Run in. A result the store still refuses when the stop
// can wait no longer is kept in a file for the next start (kept).
func (d *Dispatcher) record(res run.Attempt, st start) (run.State, error) {
	if st.unrecorded {
		err := d.persist("the start of attempt "+res.ID, func(ctx context.Context) error {
			return d.store.AttemptRunning(ctx, res.ID, st.pid)
		})
		if err != nil {
			return "", d.keepUnrecorded(res, st, fmt.Errorf("its start: %w", err))
		}
	}
	var finished run.State
	err := d.persist("the result of attempt "+res.ID, func(ctx context.Context) (err error) {
		finished, err = d.store.AttemptFinish(ctx, res)
		return err
	})
	if err != nil {
		return "", d.keepUnrecorded(res, st, fmt.Errorf("its result: %w", err))
	}
	return finished, nil
}

// keepUnrecorded keeps in a file a result the store did not take because
// the stop ended the tries (recordGiveUp), and reports what became of it;
// any other failure is returned as it is.
func (d *Dispatcher) keepUnrecorded(res run.Attempt, st start, err error) error {
	if d.recording.Err() == nil {
		return err
	}
	if keepErr := d.cfg.Owner.keep(kept{Result: res, PID: st.pid, StartUnrecorded: st.unrecorded}); keepErr != nil {
		return fmt.Errorf("%w; keeping it for the next start failed too (%v): the next start will find the attempt lost", err, keepErr)
	}
	return fmt.Errorf("%w; kept in %s, the next start records it", err, d.cfg.Owner.dir)
}

// refusedForNow reports a write the store did not make and may make later:
// it was unavailable (the disk full), or the write lock stayed with
// another process for all the time the write had.
func refusedForNow(err error) bool {
	return qlerror.Is(err, qlerror.Unavailable) || qlerror.Is(err, qlerror.Timeout)
}

// persist calls write until the store takes it. While the store refuses it
// for now — another process holding the write lock, the disk full — it
// tries again, backing off from recordRetry to recordRetryMax, for as long
// as the server runs and until its stop can wait no longer (d.recording
// ends): a write given up on sooner would leave its Run running, its
// command long ended, and would hold back every later occurrence of a
// trigger whose overlap policy waits for it (a full disk can last until
// someone frees space). A write refused longer than recordQuietFor is
// reported once, as a write lock held for a moment is not news and a full
// disk is.
func (d *Dispatcher) persist(what string, write func(context.Context) error) error {
	told := false
	return loop.Persist{First: recordRetry, Most: recordRetryMax, PerTry: recordTimeout, RefusedForNow: refusedForNow,
		OnRefused: func(began time.Time, err error) {
			if !told && time.Since(began) >= recordQuietFor {
				d.cfg.OnError(fmt.Errorf("cannot record %s for %s: %w; trying again every few seconds until it is recorded (its Run shows running meanwhile)",
					what, time.Since(began).Round(time.Second), err))
				told = true
			}
		},
	}.Do(d.recording, write)
}
