// Package server is the composition root of the single-node profiles
// (standalone and edge): one process on one embedded SQLite file that
// schedules with the durable cursor + state_version CAS and runs commands
// with the local executor. It links no PostgreSQL code, row leases or
// cluster lifecycle; a test audits the edge binary's dependency closure.
//
// Start order (each step only after the previous one succeeded):
//
//	validate config → data directory lock → bind and serve the listeners
//	  (optional; /livez 200, /readyz 503, everything else 503)
//	  → open file → integrity check (/readyz 503 integrity_check) → migrate
//	  → readiness → the API, the console and the metrics on those
//	  listeners (/readyz 503 until the end) → commit watch → owner lock → recovery (dead owners' attempts
//	  become lost) → dispatcher → scheduler loop → notifications
//	  → retention → watch loop (when the cadence is longer than the
//	  watch period)
//
// Stop runs in reverse and is bounded by the profile's stop timeout:
// /readyz turns 503, the watch stops, the scheduler stops and drains,
// the dispatcher kills what still runs after its grace and records it,
// then the owner lock, the watch's connection, the file and last the data
// directory lock are released.
//
// One server serves a data directory: a second one's start is refused at
// the lock, before it touches anything. Other processes (ql apply, ql
// triggers run) still commit to the file beside the server, and none of
// them duplicates an occurrence: every decision commits in BEGIN IMMEDIATE
// against the row's state_version, and the occurrence's idempotency key is
// unique.
package server
