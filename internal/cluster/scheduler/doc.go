// Package scheduler is the cluster profile's scheduler: one replica's
// bounded loop of claim → decide → admit rounds over the PostgreSQL runtime.
//
// There is no leader. Every replica runs the same scheduler; the row
// claims (owner, token, claim version, expiry in database time) decide who
// may commit which schedule row, so two replicas never admit the same
// occurrence and a dead replica's rows are taken over once its claims expire
// (a stopping replica gives its uncommitted claims back instead).
//
//	Start ─► round ─► full page and progress? ──yes──► round (at once)
//	           ▲                 │no
//	           └─── cadence ◄────┘
//	Stop ─► cancel the running round (it gives back the claims it did not commit) ─► wait ≤ StopTimeout ─► ErrDrainTimeout naming what still ran
//
// While a burst drains, a round overlaps its pages: once a full page made
// progress, the next page is claimed and decided while it commits (at most
// one page in flight), and the round waits for it before it ends.
//
// Guarantees:
//   - a round claims at most PageSize rows (hard cap 256) and decides each
//     from its claim's database acquisition time only (a row claimed
//     ahead, from its own due time): the config has no clock;
//   - Run and Attempt identities are allocated only for admits;
//   - rounds never overlap (within one, at most one page commits while the
//     next is claimed), and errors go to the diagnostic sink (the
//     stable codes every profile shares, no SQL parameters, command text or
//     secrets) without stopping the loop;
//   - the first error that wraps schedule.ErrUnavailable trips the
//     availability latch of this activation, and from then on no round
//     claims anything: the replica's owner stops this scheduler and
//     starts a fresh one on a fresh pool once the database answers again.
package scheduler
