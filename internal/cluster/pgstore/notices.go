package pgstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// The LISTEN/NOTIFY channels replicas wake each other on
// (sql/notices.sql listens on them by name).
const (
	// RunsQueuedChannel wakes the pulls waiting for work.
	RunsQueuedChannel = "qinglong_runs_queued"
	// SchedulesChangedChannel wakes the schedulers: a row a claim may take
	// was published, re-enabled or resumed. Without it a replica would see
	// such a row only at its next cadence tick, and a trigger applied
	// shortly before its first occurrence would fire that much late.
	SchedulesChangedChannel = "qinglong_schedules_changed"
	// StopAskedChannel wakes the waiting pull or watch of one worker
	// session: a stop was asked of an attempt it holds (its Run was
	// cancelled while it started or ran). The payload is the session's id,
	// so only that session's waiter goes back to the database; a channel
	// of its own, so a replica older than it (which does not listen on
	// it) is not woken by it at all.
	StopAskedChannel = "qinglong_stop_asked"
)

// SessionChangedPayload is the payload of a notice on RunsQueuedChannel
// that says a worker session stopped being active (replaced, or its
// worker revoked or drained), besides waking the pulls: it also wakes a
// worker's watch (a pull of Max 0), which no Run queued concerns. Runs
// queued carry an empty payload.
const SessionChangedPayload = "session"

// Notices are the functions a listener calls, one per channel; a nil one
// ignores its channel. RunsQueued is told whether the notice says a
// session stopped being active (SessionChangedPayload); StopAsked is told
// the session one of whose attempts a stop was asked of.
type Notices struct {
	RunsQueued       func(sessionChanged bool)
	SchedulesChanged func()
	StopAsked        func(sessionID string)
	// Subscribed, when set, is called once the connection listens on
	// every channel: a notice sent from then on is heard, one sent before
	// may have been lost, so this is the moment a (re)started listener's
	// waiters must look at the database again.
	Subscribed func()
}

// NotifyRunsQueued wakes the pulls waiting on every replica. Call it after
// an admission round that admitted something, once its transactions have
// committed: never inside one (a NOTIFY serialises commits).
func (r *Runtime) NotifyRunsQueued(ctx context.Context) error {
	_, err := r.pool.Exec(ctx, sqlNotifyRunsQueued, RunsQueuedChannel)
	return mapErr(err, "notifying queued runs")
}

// NotifySessionChanged wakes the pulls waiting on every replica, the
// workers' watches included, after a session stopped being active:
// replaced by a registration. Like NotifyRunsQueued, after the COMMIT.
func (r *Runtime) NotifySessionChanged(ctx context.Context) error {
	return notifySessionChanged(ctx, r.pool)
}

// notifySessionChanged sends the session-changed notice through q: the
// runtime's pool after a replacement, the admin's after a revocation or
// a drain (pg_notify is callable by every role).
func notifySessionChanged(ctx context.Context, q querier) error {
	_, err := q.Exec(ctx, sqlNotifySessionChanged, RunsQueuedChannel, SessionChangedPayload)
	return mapErr(err, "notifying a session's change")
}

// notifyStopAsked wakes, on every replica, the waiting pull or watch of
// each session in sessions: a stop was asked of an attempt it holds. One
// statement, one notice per session, sent after the COMMIT that recorded
// the stop intents (a NOTIFY inside would take the database-wide commit
// lock). A failed notification leaves the worker to hear the stop at its
// next renewal, as before the notice existed, so it is not an error of
// the cancel.
func notifyStopAsked(ctx context.Context, q querier, sessions []string) {
	if len(sessions) == 0 {
		return
	}
	_, _ = q.Exec(ctx, sqlNotifyStopAsked, StopAskedChannel, sessions)
}

// refreshEligibility runs one eligibility refresh (eligibility.go) in tx
// and, in the same round trip, queues the schedules-changed notice, which
// PostgreSQL delivers only if tx commits. Every transaction that can make
// a row claimable runs a refresh last, so each of them wakes the
// schedulers.
func refreshEligibility(ctx context.Context, tx pgx.Tx, query string, args ...any) error {
	b := &pgx.Batch{}
	b.Queue(query, args...)
	b.Queue(sqlNotifySchedulesChanged, SchedulesChangedChannel)
	return tx.SendBatch(ctx, b).Close()
}

// listenerCloseTimeout bounds the close of the listener's connection.
const listenerCloseTimeout = time.Second

// Listen calls on's function for every notice on its channel, on a
// dedicated connection of its own (a listening session must not go back
// to the pool). It returns nil when ctx ends, and an error when the
// connection is lost: the caller then listens again, and meanwhile pulls
// fall back to their bounded wait and schedulers to their cadence.
func (r *Runtime) Listen(ctx context.Context, on Notices) error {
	conn, err := pgx.ConnectConfig(ctx, r.pool.Config().ConnConfig.Copy())
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return mapErr(err, "opening the notice listener")
	}
	defer func() {
		// Bounded: on a partitioned network the goodbye to the server
		// would otherwise hold a deactivation up to its stop timeout.
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), listenerCloseTimeout)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	for _, listen := range []string{sqlListenRunsQueued, sqlListenStopAsked, sqlListenSchedulesChanged} {
		if _, err := conn.Exec(ctx, listen); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return mapErr(err, "listening for notices")
		}
	}
	if on.Subscribed != nil {
		on.Subscribed()
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return mapErr(err, "waiting for notices")
		}
		switch {
		case n.Channel == SchedulesChangedChannel:
			if on.SchedulesChanged != nil {
				on.SchedulesChanged()
			}
		case n.Channel == StopAskedChannel:
			if on.StopAsked != nil {
				on.StopAsked(n.Payload)
			}
		case on.RunsQueued != nil:
			on.RunsQueued(n.Payload == SessionChangedPayload)
		}
	}
}
