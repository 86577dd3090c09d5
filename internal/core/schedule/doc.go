// Package schedule is the profile-neutral heart of QingLong: the pure
// cron/misfire decider, the occurrence identity, the storage contract every
// profile's adapter keeps, and the round that drives it.
//
// A round:
//
//	ScheduleTake ──► tickets (snapshot + fence + observation time)
//	     │                 no lock held from here on
//	     ▼
//	Decide(ticket) ──► initialize | skip | admit      (pure, no I/O, no clock)
//	     │
//	     ▼
//	ScheduleCommitPage ──► per decision: admitted | initialized | skipped | raced | unavailable | failed
//
// The page's decisions are committed together (ScheduleCommitPage), each
// with exactly the outcome a lone ScheduleCommit would give it. Invariants
// the adapters enforce for every decision:
//   - the snapshot still holds (project active, trigger/task revisions and
//     digests, schedule revision, state version and cursor);
//   - the fence still holds: the cluster's claim (owner, token, version,
//     expiry, acquired time) checked against the database clock, or the
//     single-node state_version CAS;
//   - an admit writes the queued Run, Attempt 1, run.created and run.queued
//     and advances the cursor in one transaction, and the final schedule
//     update carries the whole fence and must touch exactly one row.
//
// A commit that writes nothing says why with one Reason of a closed set
// (reasons.go), each tied to one outcome; every adapter verifies in the same
// order (docs/architecture.md, "Outcomes and reasons"), so the same
// situation reads the same on every profile.
//
// Because the take bumps state_version and a republished trigger bumps it
// again, a stale ticket can never commit: its fence names a version that no
// longer exists. The idempotency key ql3:cron:v1:<trigger>:<rev>:<ms> is
// unique, so even a replay after a lost COMMIT reply creates nothing twice.
package schedule
