package agent

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"
)

// unreachableRepeat is how often a worker that still gets no answer says
// so again: often enough that an operator tailing its log sees within half
// a minute that it is still cut off, seldom enough that an outage of hours
// stays a few hundred lines (a line per failed send would be one every
// 2 s per request in flight).
const unreachableRepeat = 30 * time.Second

func newReachability(log *slog.Logger, repeat time.Duration) *reachability {
	return &reachability{log: log, repeat: repeat, lost: make(chan struct{}, 1)}
}

// reachability says in the worker's log when the replicas stop answering
// and when they answer again. The client retries every request by itself
// (see Client.call) and a pull retries for as long as the worker runs, so
// without it a cut-off worker would log nothing until a heartbeat gave up,
// seconds later, and then one line per heartbeat.
//
// It speaks only once a server has answered: until then the worker is
// registering, and register says why each try failed.
type reachability struct {
	log *slog.Logger
	// repeat is how often a continuing outage is logged again.
	repeat time.Duration
	// lost is signalled when an outage begins, so the worker heartbeats at
	// once: a pull that reaches a replica again waits there for work, up
	// to its long-poll, and only a request answered at once tells within
	// a retry that the replica is back.
	lost chan struct{}

	mu sync.Mutex
	// answered is when a server last answered; zero before the first.
	answered time.Time
	// since is the first failure of the outage under way; zero while the
	// servers answer. said is when it was last logged; failures counts
	// the sends that failed in it.
	since    time.Time
	said     time.Time
	failures int
	// foreignSaid is when each server that answered as no worker ingress
	// was last said to.
	foreignSaid map[string]time.Time
	// stoppingSaid is when each server that answered it is stopping was
	// last said to.
	stoppingSaid map[string]time.Time
	// restarting is the server whose last answer was that it is
	// stopping: refused connections from it next are its restart, not
	// news of an outage (see failed).
	restarting string
	// stallSaid is when the worker last said it had been stalled itself:
	// every send in flight across one stall ends past its limit, and one
	// line says so for all of them.
	stallSaid time.Time
}

// stalled says, once for each stall, that a send begun at began took
// took, well past its limit: the worker itself was stalled (frozen,
// suspended, starved of CPU) for about that long. It is no outage, so it
// starts none, and no pacing (stalledSince): a replica can have answered
// in time and the worker not been there to read it.
func (r *reachability) stalled(took, limit time.Duration, began, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if began.Before(r.stallSaid) {
		return
	}
	r.stallSaid = now
	r.log.Warn("this worker was itself stalled (frozen, suspended, or starved of CPU) for about "+took.Round(time.Second).String()+
		": a request it sent took "+took.Round(time.Millisecond).String()+", past its own timeout of "+limit.Round(time.Millisecond).String()+
		", which only a stall of the worker's process allows; the replicas are not to blame, and the worker neither reports an outage nor takes fewer commands for it "+
		"(a command whose lease ran out meanwhile is stopped as its lease says)",
		"code", "worker_stalled", "stalled_for_ms", took.Milliseconds(), "timeout_ms", limit.Milliseconds())
}

// stalledSince reports whether a stall of the worker was said after t: a
// request sent at t spanned it, and how long it took says nothing of the
// replicas.
func (r *reachability) stalledSince(t time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stallSaid.After(t)
}

// stopping says that server answered it is stopping (a rolling restart, a
// scale-down), at most once per repeat interval for each server. The
// server answered, so it is no outage: a send begun before this answer
// and cut off by the server's close says nothing more, and with several
// --server the next one takes the requests without a warning or a
// "reachable again" line. A sole server that then stops answering is an
// outage, said as one.
func (r *reachability) stopping(server string, others bool, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answered = now
	r.restarting = server
	if said, ok := r.stoppingSaid[server]; ok && now.Sub(said) < r.repeat {
		return
	}
	if r.stoppingSaid == nil {
		r.stoppingSaid = map[string]time.Time{}
	}
	r.stoppingSaid[server] = now
	msg := "the replica is stopping (a restart or a scale-down): the worker sends its requests to the next --server"
	if !others {
		msg = "the replica is stopping (a restart or a scale-down): the worker sends its requests to it again until it is back; give --server several replicas to go on meanwhile"
	}
	r.log.Info(msg, "code", "server_stopping", "server", server)
}

// foreign says that server answered as no worker ingress does, at most
// once per repeat interval for each server: a --server given the wrong
// address is a mistake to fix, said also before the first answer and when
// the next server answers at once, which no outage line would.
func (r *reachability) foreign(server string, cause error, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if said, ok := r.foreignSaid[server]; ok && now.Sub(said) < r.repeat {
		return
	}
	if r.foreignSaid == nil {
		r.foreignSaid = map[string]time.Time{}
	}
	r.foreignSaid[server] = now
	r.log.Warn("this --server did not answer as a worker ingress: the worker tries each request again (on the next --server when there are several)", "code", "server_not_ingress",
		"server", server, "error", cause.Error())
}

// reached records an answer, refusals included (the server was reached),
// from server at now, and says the outage under way is over.
func (r *reachability) reached(server string, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answered = now
	r.restarting = ""
	if r.since.IsZero() {
		return
	}
	r.log.Info("the replica answers again", "code", "server_reachable", "server", server,
		"unreachable_for_ms", now.Sub(r.since).Milliseconds(), "failed_requests", r.failures)
	r.since, r.failures = time.Time{}, 0
}

// failed records a send to server, begun at sent, that got no answer at
// now (a network failure, no answer in time, a 503 or a 429).
func (r *reachability) failed(server string, cause error, sent, now time.Time, tried time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Before the first answer the worker is registering, which says so
	// itself; a send begun before the last answer is older news than it.
	if r.answered.IsZero() || sent.Before(r.answered) {
		return
	}
	r.failures++
	switch {
	case r.since.IsZero() && server == r.restarting:
		// The replica said it was stopping, and now its port is closed:
		// it exited, cleanly, and a process manager starts it again
		// within seconds. Said as information at once; the warning
		// comes only if the restart outlasts the repeat interval, with
		// the outage's length, from the case below.
		r.since, r.said = now, now
		select {
		case r.lost <- struct{}{}:
		default:
		}
		r.log.Info("the replica that said it was stopping does not answer yet (a restart): the worker retries it, pausing up to "+backoffMax.String()+" between tries, "+
			"and warns if no replica answers within "+r.repeat.String()+"; a running command is killed if its lease cannot be renewed meanwhile",
			"code", "server_restarting", "server", server, "error", unreachableCause(cause, tried), "retry_every_ms", backoffMax.Milliseconds())
	case r.since.IsZero():
		r.since, r.said = now, now
		select {
		case r.lost <- struct{}{}:
		default:
		}
		r.log.Warn(noAnswer(cause, "the replica")+": the worker retries each request, pausing up to "+backoffMax.String()+" between tries (on the next --server when there are several), "+
			"and says so again every "+r.repeat.String()+" until one answers; a running command is killed if its lease cannot be renewed meanwhile",
			"code", "server_unreachable", "server", server, "error", unreachableCause(cause, tried), "retry_every_ms", backoffMax.Milliseconds())
	case now.Sub(r.said) >= r.repeat:
		r.said = now
		r.log.Warn("still "+noAnswer(cause, "the replicas")+": the worker keeps retrying", "code", "server_unreachable", "server", server,
			"error", unreachableCause(cause, tried), "retry_every_ms", backoffMax.Milliseconds(),
			"unreachable_for_ms", now.Sub(r.since).Milliseconds(), "failed_requests", r.failures)
	}
}

// noAnswer says what the latest failed send got from who: no answer at
// all, or an answer that the replica cannot serve it now (a 503 while it
// starts, re-activates its database or drains; a 429; a 500), which the
// error then names. An operator who reads "no answer" looks at the
// network, where a replica that answered not ready is waiting for its
// database.
func noAnswer(cause error, who string) string {
	var e *Error
	if errors.As(cause, &e) {
		return who + " cannot serve the worker's requests now (it answers, refusing them for a while: see error)"
	}
	return "no answer from " + who
}

// unreachableCause says why a send got no answer without the URL, which
// the line names as its server, nor anything from the request (the
// credential travels in a header, which no error carries).
func unreachableCause(err error, tried time.Duration) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return fmt.Sprintf("no answer within %s", tried.Round(time.Millisecond))
		}
		return ue.Err.Error()
	}
	return err.Error()
}
