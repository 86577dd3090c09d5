package workeringress

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// CodePullWaiting is the debug record of a pull that starts to wait.
const CodePullWaiting = "ingress.pull_waiting"

// pull asks the database for grants; when there are none and the worker
// allows a wait, it waits for a wake (or its bound) and asks once more,
// as often as it is woken. While it waits it holds no database
// connection and no claim on the activation: the store is released and
// acquired afresh, so a re-activated replica answers through its new pool
// and one that lost its database answers what it has; a stopping replica
// answers replica_stopping.
//
// A pull of max 0 is a worker's watch, sent while every slot of it is
// busy, or while it drains and still runs commands: it never grants, and
// waits only for a session to change (WakeSessions), or for a stop asked
// of its session's attempts, not for Runs queued, so a full worker costs the
// database one read of its session per wait bound and per replacement,
// while it hears its replacement as soon as a pull would.
//
// A draining worker's watch (PullRequest.Draining) takes draining, and
// active, as no news: it waits for what still matters to a worker that
// only finishes its commands (its session ended, its credential revoked,
// a stop asked of one of its attempts), where any watch of a draining
// session would answer draining at once, again and again.
//
// A pull or watch woken by a stop asked of one of its session's attempts
// (StopAsked, or a listener's restart) reads those attempts too and, if
// there are any, answers them at once: the worker renews each now and
// hears stop. Only that read tells the stops, never a pull's every query:
// an answer for a stop the worker is already ending would send its next
// watch back at once, again and again.
func (h *Handler) pull(req *request) {
	arrived := time.Now()
	var in workerproto.PullRequest
	if !h.decode(req, workerproto.MaxBody, &in) {
		return
	}
	if in.WaitMs < 0 {
		h.writeError(req.w, req.r, qlerror.New(qlerror.Invalid, "waitMs %d is negative; send 0–%d", in.WaitMs, workerproto.MaxPullWait.Milliseconds()), req.credential, in.Token)
		return
	}
	if in.Draining && in.Max != 0 {
		h.writeError(req.w, req.r, qlerror.New(qlerror.Invalid, "draining is for a watch (max 0): a draining worker takes no work; send max 0 with it, or leave it out to pull"), req.credential, in.Token)
		return
	}
	wait := min(time.Duration(in.WaitMs)*time.Millisecond, workerproto.MaxPullWait)
	watch := in.Max == 0
	bound := time.NewTimer(wait)
	defer bound.Stop()
	stops := h.stops.join(in.SessionID)
	defer func() { h.stops.leave(in.SessionID, stops) }()
	for {
		// Taken before the query: a wake between the query and the wait
		// sends this pull back at once. A watch has no use for Runs
		// queued: its nil channel never fires. A stop wake (whichever wake
		// the wait took) is joined again before the query that reads the
		// stops, so none after it is missed either.
		var woken <-chan struct{}
		if !watch {
			woken = h.wakeup.c()
		}
		changed := h.changed.c()
		readStops := false
		select {
		case <-stops.ch:
			readStops = true
			stops = h.stops.join(in.SessionID)
		default:
		}
		asked := time.Now()
		ctx, cancel := context.WithTimeout(req.r.Context(), DefaultStepTimeout)
		reply, err := req.st.PullGrants(ctx, req.worker, in, h.settings)
		if err == nil && readStops {
			reply.Stop, err = req.st.StopsAsked(ctx, req.worker, in.SessionID)
		}
		cancel()
		if err != nil {
			h.fail(req, err, in.Token)
			return
		}
		countFromArrival(reply.Grants, asked.Sub(arrived))
		if len(reply.Grants) > 0 || len(reply.Stop) > 0 || news(reply.State, in.Draining) || wait == 0 {
			writeJSON(req.w, http.StatusOK, reply)
			return
		}
		req.release()
		req.release = func() {}
		h.log.Debug("pull found no work; waiting", slog.String("code", CodePullWaiting), slog.String("worker", req.worker.Name))
		select {
		case <-woken:
		case <-changed:
		case <-stops.ch:
		case <-bound.C:
			writeJSON(req.w, http.StatusOK, reply)
			return
		case <-h.stopped:
			// Nothing was granted while it waited, so the worker loses
			// nothing by sending the same pull to its next --server,
			// which a stopping answer has it do at once: an empty answer
			// would bring its next pull back here, to a listener that
			// may be closed by then, said as an outage.
			h.writeError(req.w, req.r, errStopping, req.credential, in.Token)
			return
		case <-req.r.Context().Done():
			return
		}
		st, release, ok := h.acquire()
		if !ok {
			writeJSON(req.w, http.StatusOK, reply)
			return
		}
		req.st, req.release = st, release
	}
}

// news reports whether a pull or watch answers state at once: any state
// but active, except draining for a draining worker's watch, which
// already drains.
func news(state string, draining bool) bool {
	switch state {
	case workerproto.SessionActive:
		return false
	case workerproto.SessionDraining:
		return !draining
	}
	return true
}

// countFromArrival makes each grant's lease count from when the pull
// arrived, not from when it was granted: the worker counts a lease from
// when it sent the request, and after a long-poll the grant may be made up
// to MaxPullWait later — a length counted from the grant would end the
// worker's copy early by the whole wait, possibly before the command could
// even start. The lease began no earlier than asked, and the worker sent
// the request no later than it arrived, so the worker's copy still ends no
// later than the lease does.
func countFromArrival(grants []workerproto.Grant, waited time.Duration) {
	for i := range grants {
		grants[i].LeaseMs += waited.Milliseconds()
	}
}
