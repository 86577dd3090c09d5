// Package executor is the single-node profiles' executor: a bounded
// dispatcher that runs admitted Runs as local processes and records their
// attempts, and the recovery that runs when a server starts.
//
// Attempt lifecycle (each arrow is one transaction in the store):
//
//	claimed ──AttemptStart──► starting ──AttemptRunning──► running ──AttemptFinish──► succeeded | failed | timed_out | cancelled | lost
//	   │  (run queued → running,           (attempt.started,           (run.<result>, or run.retry_wait with
//	   │   run.running; one owner wins)     pid recorded)               Attempt N + 1 when the retry policy allows)
//	   └─ never started: stays claimed, picked up by the next dispatcher round (also after a restart)
//	starting | running ──(owner process died)──► lost   (on the next server start: run.lost, or run.retry_wait as above)
//	starting | running ──(result kept in a file at a stop the store refused)──► its result   (on the next server start, before the lost ones)
//	retry_wait ──RetriesRequeue (backoff passed)──► queued   (run.queued, reason retry: Attempt N + 1 is picked up)
//
// Invariants:
//   - The dispatcher is woken only after an admission commits (and polls on
//     a cadence for work another process admitted), and when the earliest
//     retry backoff ends; it starts at most Concurrency processes at once.
//   - Exactly one dispatcher starts an attempt: claimed → starting is a
//     compare-and-swap in the store, safe across processes sharing a file.
//   - Every executor instance holds an exclusive lock on its owner file for
//     its whole life. Recovery marks an owner's starting/running attempts
//     lost only when it can take that lock itself — that is, only when the
//     owner process is gone — so a second live server is never mistaken for
//     a crashed one.
//   - Commands run through internal/core/process: a command runs in its own process group, in its task's workingDir or
//     else a fresh empty 0700 directory removed afterwards, as its task's
//     runAs account or the server's default. A timeout, a stop, or the end
//     of its main process ends the whole group and, on Linux, descendants
//     that left it: SIGTERM, then SIGKILL after the task's kill grace (a
//     stop cuts the grace short so results are recorded in time).
//   - A command whose server died keeps running; recovery ends it after
//     marking its attempt lost, on Linux only and only when the process
//     group is provably the command's (see process.EndOrphan: a reused
//     pid is left alone); elsewhere it is reported as left.
//   - Output goes to one log file per attempt, capped; what is cut is marked.
//     Secret values are resolved from the local secret file only at start,
//     passed only in the child's environment and masked in its output; they
//     are never logged, stored in the database or put in events.
package executor
