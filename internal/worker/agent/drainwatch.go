package agent

import (
	"context"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// drainWatches keeps a draining watch (PullRequest.Draining) waiting on
// the replica until ctx ends, which Run does once the drain is over. A
// draining worker pulls no more, so without it nothing would wait on the
// replica for it: a revocation, a replacement or a stop asked of one of
// its commands would be heard only at the next renewal, log chunk or
// heartbeat (up to 10 s at the default lease), for as long as its
// commands run, which may be hours. It never takes a grant: a watch asks
// for none.
//
// Every wait is bounded and none is a busy loop: a replica older than the
// draining watch refuses it, and it is tried again only on another server
// or after watchRetry; one that answers it at once with nothing to say (it
// took it for a plain watch, which answers draining at once) is asked
// again after a pause that doubles from pullRetry up to watchRetry.
func (w *worker) drainWatches(ctx context.Context) {
	early := pullRetry
	for ctx.Err() == nil && w.count() > 0 {
		offer, err := watchOffer()
		if err != nil {
			w.log.Error("could not make a watch's token: while it drains, the worker hears a revocation or a cancel at its next renewal or heartbeat", "code", "session_watch_failed", "error", err.Error())
			return
		}
		sid := w.sessionID()
		rep, sent, err := w.client.Pull(ctx, workerproto.PullRequest{SessionID: sid, OfferID: offer.ID, Token: offer.Token,
			Max: 0, WaitMs: w.cfg.PullWait.Milliseconds(), Draining: true})
		pause := time.Duration(0)
		var moved <-chan struct{}
		switch {
		case ctx.Err() != nil:
			return
		case Code(err) == workerproto.CodeInvalid:
			pause, moved = w.drainWatchRefused(err)
		case err != nil:
			w.onSessionError(sid, "watch", err)
			pause = pullRetry
		default:
			w.stopsAsked(rep.Stop)
			w.onSessionState(sid, rep.State)
			settled := rep.State == workerproto.SessionActive || rep.State == workerproto.SessionDraining
			switch {
			case !settled:
				pause = pullRetry
			case len(rep.Stop) == 0 && time.Since(sent) < w.cfg.PullWait/2:
				pause, early = early, min(2*early, w.cfg.watchRetry)
			default:
				early = pullRetry
			}
		}
		if pause > 0 && !sleepCtx(ctx, pause, moved) {
			return
		}
	}
}

// drainWatchRefused says, once per server, that a replica refused the
// draining watch (a replica older than it), and returns how long to wait
// before the next try and the channel that ends the wait early: the
// worker moving to another server, whose replica may be newer.
func (w *worker) drainWatchRefused(err error) (time.Duration, <-chan struct{}) {
	server, url, _ := w.client.refuser(err)
	if !w.drainWatchRefusedBy[url] {
		w.drainWatchRefusedBy[url] = true
		w.log.Info("the replica does not keep a draining worker's watch (a replica older than it): while the worker drains, a revocation or a cancel is heard at the next renewal, log chunk or heartbeat; the watch is tried again on another server, or here after retry_after_ms",
			"code", "drain_watch_unknown", "server", url, "retry_after_ms", w.cfg.watchRetry.Milliseconds())
	}
	return w.cfg.watchRetry, w.client.movedFrom(server)
}

// sleepCtx waits d, or until moved closes; false when ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration, moved <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-moved:
	case <-t.C:
	}
	return true
}
