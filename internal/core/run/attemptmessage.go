package run

import (
	"fmt"
	"time"

	"github.com/qinglong/qinglong/internal/core/validate"
)

// The error messages QingLong itself records on an attempt, in English,
// whichever profile or process records them: the console's pages say each
// in their own language by its English, so the words live here once. Each
// is named …Message, which is how the console's test finds every one.

// NotStartedMessage is recorded by either executor (the standalone
// server's, a worker's) on an attempt whose command was never started; the
// log names the reason in full.
const NotStartedMessage = "the command was not started; the attempt's log says why"

// SignalMessage is recorded by either executor, and by the replica over
// what a worker reports, on an attempt whose command was killed by sig: the
// number and the name, so a SIGKILL (the OOM killer, a kill -9) is told
// from a crash (SIGSEGV).
func SignalMessage(sig int) string {
	return fmt.Sprintf("the command was killed by signal %d (%s)", sig, SignalName(sig))
}

// StoppedWorkerMessage is reported by a worker on an attempt whose command
// it stopped because it was itself stopping, by signal (SIGTERM; "" when it
// was stopped otherwise), once stopTimeout ran out or, askedAgain, when a
// second signal hurried it; the replica records it with the attempt, lost
// as a crashed worker's, which otherwise would say nothing of why.
func StoppedWorkerMessage(signal string, stopTimeout time.Duration, askedAgain bool) string {
	by := ""
	if signal != "" {
		by = " (" + signal + ")"
	}
	when := fmt.Sprintf("when its stop timeout of %s ran out", stopTimeout)
	if askedAgain {
		when = fmt.Sprintf("when it was asked to stop a second time, before its stop timeout of %s ran out", stopTimeout)
	}
	return fmt.Sprintf("the worker was stopped%s before the command ended, and stopped the command %s; "+
		"the attempt is lost, as a crashed worker's, and a retry policy on lost runs it again", by, when)
}

// AbandonedAttemptMessage is reported by a worker started again on the
// data directory of a process that ended while a command ran, for each
// attempt that process left: the replica records it with the lost attempt.
const AbandonedAttemptMessage = "the worker process running the command ended before the command did (a crash, SIGKILL or the machine's restart); " +
	"started again on the same data directory, it found nothing of the command running any more (or ended what was left of it) and reported the attempt lost; " +
	"a retry policy on lost runs it again"

// UnspawnedGrantMessage is reported by a worker started again on the data
// directory of a process that ended after the replica acknowledged a
// grant's start and before it spawned the command: the replica records it
// with the lost attempt.
const UnspawnedGrantMessage = "the worker process ended after the replica acknowledged the start and before it spawned the command (a crash, SIGKILL or the machine's restart); " +
	"started again on the same data directory, it found from its journal that the command never ran and reported the attempt lost; " +
	"a retry policy on lost runs it again"

// LeaseExpiredMessage is recorded by a replica's sweep on an attempt lost
// because its worker stopped renewing the lease. A frozen or cut-off
// worker kills the command itself; a crashed one's command may run on, and
// only the worker started again on its data directory ends it, which the
// replica cannot do: the message says so where the Run is read.
const LeaseExpiredMessage = "the worker stopped renewing the lease (crashed, stopped or cut off); " +
	"if it crashed, what is left of the command may run on its host until the worker is started again on the same data directory, which ends it; " +
	"a retry policy on lost runs it again"

// EarlierLeaseExpiredMessage is LeaseExpiredMessage as replicas recorded it
// before it said what to do: attempts lost then still carry it.
const EarlierLeaseExpiredMessage = "the worker stopped renewing the lease (crashed, stopped or cut off)"

// DatabaseRolledBackMessage is recorded by a replica's sweep on an attempt
// lost whose worker presented a lease version ahead of the database's: the
// database went back (a restore, a failover that lost commits) and the
// worker was refused and killed the command.
const DatabaseRolledBackMessage = "the database went back to an earlier point than the worker was told (a restore, or a failover to a standby that lost commits): the worker's lease was ahead of the database's, so its renewal was refused and it killed the command"

// WorkerRevokedMessage is recorded by a replica's sweep on an attempt lost
// because its worker's credential was revoked while the command ran.
const WorkerRevokedMessage = "the worker's credential was revoked while the command ran (ql workers revoke): the worker was refused and killed the command"

// LeaseUnsweptMessage is recorded by a replica's sweep on an attempt lost
// whose lease no replica ended until late after it ran out, while a
// replica that reaches the database ends one within the span within: the
// replicas could not reach the database meanwhile, so they refused the
// worker's renewals whatever the worker did.
func LeaseUnsweptMessage(late, within time.Duration) string {
	return fmt.Sprintf("the lease ran out while the replicas could not reach the database (or none ran): no replica ended it until %s after, where one that reaches the database does within %s, "+
		"so the worker's renewals were refused; the worker's own log says whether it ran on meanwhile (attempt_lease_lost: it did, and killed the command when it could not renew)",
		validate.Duration(late), validate.Duration(within))
}

// LeaseExpiredAfterTimeoutMessage is recorded by a replica's sweep on an
// attempt timed out whose lease ran out at or after its deadline.
const LeaseExpiredAfterTimeoutMessage = "the command passed its timeout and the worker's lease ran out before it reported the end"
