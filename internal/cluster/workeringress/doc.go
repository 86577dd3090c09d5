// Package workeringress is the worker ingress of a cluster replica: the
// HTTP handler of every workerproto path, served on a listener of its own.
// It keeps no dispatch state: every step is one call of the database's
// worker API, so any replica can answer any worker and a retried request
// may land on another replica.
//
//	request ─► route (POST, known path) ─► bearer credential present
//	  ─► live store? (503 unavailable while the replica is not ready)
//	  ─► authenticate (401) ─► per-worker token bucket (429)
//	  ─► body under its cap (413), strict JSON (400)
//	  ─► one worker-API call ─► JSON reply, or workerproto.Error
//
// Guarantees:
//   - the worker's identity comes only from its credential; a credential
//     is cached (by its SHA-256, never in the clear) for at most
//     AuthCacheTTL, so a revocation is effective within that bound;
//   - replies never carry the credential or a lease token, whatever a
//     store message says;
//   - a pull that found nothing waits at most min(waitMs, MaxPullWait) and
//     never beyond its request, holding neither a database connection nor
//     the activation while it waits: Wake (an admission here, a
//     notification from another replica, a sweep that released work, a
//     grant given back, a session ended or replaced) sends it back to the
//     database once more, so a replaced worker's own pull answers
//     replaced at once;
//   - a watch (a pull of max 0, kept waiting by a worker whose every slot
//     is busy) is granted nothing and is sent back to the database only
//     by WakeSessions (a session replaced, a worker revoked or drained, a
//     listener's restart) or by StopAsked of its own session, never by
//     Wake: a full worker costs one read of its session per wait bound,
//     and still hears its replacement, its revocation or its drain at once;
//   - a draining worker's watch (PullRequest.Draining) waits through its
//     session's drain, answering only its end, its revocation or a stop,
//     so a worker that waits hours for its commands to finish hears those
//     at once too, without a watch answered at once again and again; the
//     first one of a session still active records it draining (the
//     worker stops on its own), so the replicas count it as taking no
//     work while its commands finish;
//   - StopAsked (a cancel asked a running attempt of that session to stop)
//     sends back the waiting pull or watch of that one session only, which
//     answers the session's attempts asked to stop, so its worker renews
//     them at once and hears stop; with none waiting, the stop is kept
//     (bounded) for that session's next request here; stops are answered
//     only after such a wake or a listener's restart, never on every query;
//   - Stop ends every waiting pull at once, for a bounded drain.
package workeringress
