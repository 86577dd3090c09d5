// Package workerproto is the wire contract between a worker (`ql worker`)
// and the worker ingress of a cluster replica: paths, JSON bodies, reply
// kinds, error codes and limits. Both sides import it, so neither can drift;
// it holds no behaviour.
//
// Every step after a grant names its lease by (attempt id, raw lease token,
// lease version).
//
// A grant is started once the replica acknowledged its start (StartRequest
// answered renewed or stop): the worker spawns the command only after that
// answer, so from then on the replica must assume it may run, and the
// attempt ends only by a completion or its lease (lost). A grant not yet
// started was never spawned: the replica gives it back to the queue when
// its lease passes, when the worker gives it back (GiveBackRequest), or
// when the worker ends its session (EndRequest), each fenced so that a
// start acknowledged first wins and a start arriving after is answered
// terminal. So a command that did start is never run twice. The replica stores only the token's SHA-256, so a
// database reader can never act as the worker. Durations in replies are
// relative, counted from when the replica received the request (a grant
// made after a long-poll wait is shortened by the wait): worker and replica
// clocks are never compared, the worker counts from when it sent the
// request, which can only make its copy of a lease end early.
package workerproto

import "time"

// The ingress paths, all POST with a JSON body and a JSON reply.
const (
	PathRegister  = "/worker/v1/register"
	PathHeartbeat = "/worker/v1/heartbeat"
	PathPull      = "/worker/v1/pull"
	PathStart     = "/worker/v1/start"
	PathRenew     = "/worker/v1/renew"
	PathLog       = "/worker/v1/log"
	PathComplete  = "/worker/v1/complete"
	PathEnd       = "/worker/v1/end"
	PathGiveBack  = "/worker/v1/giveback"
)

// Protocol limits shared by both sides.
const (
	// HeartbeatEvery is how often a worker heartbeats its session.
	HeartbeatEvery = 10 * time.Second
	// SessionLease is how long a session lives without a heartbeat; it
	// covers at least two heartbeats.
	SessionLease = 45 * time.Second
	// MaxPullWait bounds a long-poll.
	MaxPullWait = 20 * time.Second
	// MaxLogChunk is the largest log chunk a worker sends in one request.
	MaxLogChunk = 256 << 10
	// MaxBody caps every request body except a log chunk's.
	MaxBody = 64 << 10
	// MaxLogBody caps a log request (a base64-encoded MaxLogChunk plus the
	// lease fields).
	MaxLogBody = MaxLogChunk*4/3 + 4<<10
	// DefaultLogCap is the default per-attempt log cap; beyond it the
	// replica stores a truncation marker and drops the rest.
	DefaultLogCap = 16 << 20
	// MaxCapacity bounds a worker's concurrency.
	MaxCapacity = 256
)

// CredentialPrefix starts every worker credential, so a leaked one is
// recognisable in a secret scanner's output.
const CredentialPrefix = "qlw_"

// RegisterRequest opens a session; the worker's identity comes from its
// bearer credential, never from the body. A new session of the same worker
// replaces its previous one (generation + 1).
type RegisterRequest struct {
	// Labels the worker adds to the ones its credential was created with;
	// a key that contradicts the credential's is refused.
	Labels map[string]string `json:"labels,omitempty"`
	// Capacity is the number of commands the worker runs at once; the
	// replica caps it at the credential's max concurrency.
	Capacity int    `json:"capacity"`
	Version  string `json:"version"`
	// Reads names the grant fields the worker honours (the Read*
	// constants): a replica grants a Run whose grant needs one of them
	// only to a session that reads it, since a worker ignores a field it
	// does not know and would run the command without it. Names the
	// replica does not know are dropped; at most MaxReads. It was added
	// after the first release: a worker older than it reads none, and
	// gets every Run but those; a replica older than it refuses the
	// field as CodeInvalid (bodies are decoded strictly), and the worker
	// registers again without it.
	Reads []string `json:"reads,omitempty"`
}

// Grant fields a worker may read (RegisterRequest.Reads).
const (
	// ReadProjectEnv: Grant.ProjectEnv, the env of the Run's project.
	ReadProjectEnv = "projectEnv"
)

// Reads is every grant field this worker build honours.
func Reads() []string { return []string{ReadProjectEnv} }

// MaxReads bounds RegisterRequest.Reads.
const MaxReads = 32

// RegisterReply describes the session the replica opened.
type RegisterReply struct {
	SessionID  string            `json:"sessionId"`
	Generation int64             `json:"generation"`
	WorkerName string            `json:"workerName"`
	Labels     map[string]string `json:"labels"`
	Capacity   int               `json:"capacity"`
	// HeartbeatMs and SessionLeaseMs restate HeartbeatEvery/SessionLease
	// as the replica applies them; RunLeaseMs is the run lease length.
	HeartbeatMs    int64 `json:"heartbeatMs"`
	SessionLeaseMs int64 `json:"sessionLeaseMs"`
	RunLeaseMs     int64 `json:"runLeaseMs"`
	// LogCapBytes is the per-attempt log cap.
	LogCapBytes int64 `json:"logCapBytes"`
	// State is the new session's state: active, or draining when an admin
	// drained the worker (`ql workers drain`), which a worker just started
	// takes as a refusal to work until it is resumed. It was added after
	// the first release: a replica older than it leaves it out, and the
	// worker then hears the drain at its first pull.
	State string `json:"state,omitempty"`
}

// Session states a heartbeat or pull reply can carry.
const (
	SessionActive   = "active"   // pull as usual
	SessionDraining = "draining" // no new work: finish what runs, then exit
	SessionReplaced = "replaced" // a newer session of this worker exists: stop
	SessionExpired  = "expired"  // the session lease passed: register again
	SessionRevoked  = "revoked"  // the credential was revoked: stop
	SessionEnded    = "ended"    // its worker stopped cleanly and ended it
)

// HeartbeatRequest keeps a session alive.
type HeartbeatRequest struct {
	SessionID string `json:"sessionId"`
	// Running is how many commands the worker runs now.
	Running int `json:"running"`
	// Reads, sent only by a worker whose registration an older replica
	// took without its RegisterRequest.Reads, names them again: a rolling
	// upgrade replaces the replicas under a running worker, and the first
	// upgraded replica to hear its heartbeat records them on the session
	// (HeartbeatReply.ReadsKept), so the worker is granted the Runs they
	// gate without registering again. A replica older than the field
	// refuses it as CodeInvalid, and the worker sends the heartbeat again
	// without it.
	Reads []string `json:"reads,omitempty"`
}

// HeartbeatReply says what the session may do.
type HeartbeatReply struct {
	State          string `json:"state"`
	SessionLeaseMs int64  `json:"sessionLeaseMs"`
	// ReadsKept says the session now records the heartbeat's Reads: the
	// worker stops sending them.
	ReadsKept bool `json:"readsKept,omitempty"`
}

// EndRequest ends the session of a worker that stops cleanly (its
// commands done or stopped and reported), so it stops counting as live at
// once rather than when its lease passes. The session's grants that were
// never started (a pull reply the worker never read, a start that was
// never acknowledged) go back to the queue in the same transaction, each
// Run's event saying so (reason session_ended), instead of when their
// leases pass. A replica older than this request answers it 404
// not_found; the session then expires with its lease, and its unstarted
// grants with theirs.
type EndRequest struct {
	SessionID string `json:"sessionId"`
}

// EndReply is the session's state after the request: ended, or the state
// that had already ended it (replaced, expired, revoked); and how many of
// its grants never started went back to the queue (a replica older than
// that count leaves it out).
type EndReply struct {
	State    string `json:"state"`
	Released int    `json:"released,omitempty"`
}

// PullRequest asks for at most Max grants. The worker journals OfferID and
// Token before it sends the request; replaying the same (OfferID, Token)
// returns the grants made for it the first time, never new ones.
//
// Max 0 is a watch: a worker whose every slot is busy keeps one waiting so
// it hears at once that its session was replaced (it has no pull waiting
// that could tell it), or that a stop was asked of one of its attempts
// (PullReply.Stop); a worker that drains keeps one too, marked Draining,
// while it runs commands. It is granted nothing, is answered when the
// session is no longer active (marked Draining: when it ended), when a
// stop was asked, or at WaitMs, and is not
// woken by Runs queued; its
// offer is not journaled, since there is no grant to replay. It was added
// after the first release: a replica older than it refuses max 0 as
// CodeInvalid, and the worker then stops watching (the next renewal or
// heartbeat tells it, as before); a worker older than it never sends one.
type PullRequest struct {
	SessionID string `json:"sessionId"`
	OfferID   string `json:"offerId"` // a UUID
	Token     string `json:"token"`   // 32 random bytes, base64url without padding
	Max       int    `json:"max"`     // 0–MaxCapacity; 0 watches the session
	// WaitMs is how long the replica may hold the request open when no
	// Run is ready (0–MaxPullWait).
	WaitMs int64 `json:"waitMs"`
	// Draining marks the watch of a worker that drains (an admin's drain
	// or a signal): it pulls no more, but keeps a watch waiting as long as
	// it runs commands, so it hears at once that its credential was
	// revoked, that its session was replaced, or that a stop was asked of
	// one of its attempts, as a worker that does not drain does. Such a
	// watch takes active and draining as no news, since the worker drains
	// either way: it is answered when the session ends (replaced, expired,
	// ended, revoked), when a stop was asked, or at WaitMs. A draining
	// watch of a session still active, of a credential not drained, is the
	// worker saying it stops on its own (a signal): the replica turns the
	// session draining, so it counts as taking no work (`ql workers list`,
	// a queued Run's waiting reason) while its commands finish, and later
	// replies about the session say draining, which such a worker already
	// does. Only a watch
	// carries it: a pull (max 1 or more) with it is refused CodeInvalid. It
	// was added after the first release: a replica older than it refuses
	// the field as CodeInvalid (bodies are decoded strictly), and the
	// worker then hears those changes at its next renewal, log chunk or
	// heartbeat, trying the watch again as it does a watch an older
	// replica refused; a worker older than it keeps no watch while it
	// drains.
	Draining bool `json:"draining,omitempty"`
}

// PullReply carries the grants (possibly none) and the session's state. A
// pull waiting for work, or a watch, is answered as soon as its session is
// no longer active: a registration that replaces a session wakes the
// waiting pulls and watches of every replica, so a replaced worker hears
// it at once, with a free slot or with every slot busy (a replica older
// than that wake answers at the wait's bound).
//
// Stop lists the attempts of this session that a stop was asked of (their
// Run was cancelled) while they were starting or running. A cancel wakes
// the waiting pull or watch of the session holding the attempt, which
// answers with it at once; the worker renews each of them now instead of
// at its renewal timer, and the renewal's answer is stop, which ends the
// command as any stop reply does. It was added after the first release: a
// replica older than it never sends it (the worker hears the stop at its
// next renewal, as before), and a worker older than it ignores it
// (replies are decoded leniently).
type PullReply struct {
	State  string   `json:"state"`
	Grants []Grant  `json:"grants"`
	Stop   []string `json:"stop,omitempty"`
}

// Grant is one leased, not yet started Attempt: the lease (its version 1
// under the pull's token) and the execution revision to run. Secrets are
// never sent: the command names secret references, which the worker
// resolves from its own secrets file.
type Grant struct {
	AttemptID     string `json:"attemptId"`
	RunID         string `json:"runId"`
	AttemptNumber int    `json:"attemptNumber"`
	Project       string `json:"project"`
	Task          string `json:"task"`
	LeaseVersion  int64  `json:"leaseVersion"`
	LeaseMs       int64  `json:"leaseMs"`
	// ExecutionID is the execution revision's id (qltd:v1:…); Command is
	// its stored command (task.EncodeCommand's form), Digest its digest.
	ExecutionID string `json:"executionId"`
	Command     []byte `json:"command"`
	Digest      string `json:"digest"`
	// ProjectID and TaskID are the ids the digest covers besides the
	// execution id and the command: with them the worker recomputes the
	// digest and refuses a command that does not match it.
	ProjectID string `json:"projectId"`
	TaskID    string `json:"taskId"`
	// Trigger (its name at the Run's trigger revision), ScheduledForMs,
	// DueAtMs and Origin (run.Origin's values) are the Run's occurrence,
	// for the command's environment (run.Identity). They were added after
	// the first release: a replica older than them leaves them empty, and
	// the command is told an empty trigger and origin and the Unix epoch
	// as its times.
	Trigger        string `json:"trigger,omitempty"`
	ScheduledForMs int64  `json:"scheduledForMs,omitempty"`
	DueAtMs        int64  `json:"dueAtMs,omitempty"`
	Origin         string `json:"origin,omitempty"`
	// ProjectEnv is the env of the project as the Run is granted
	// (task.EncodeEnv's form, "" none): no part of the execution revision
	// or its digest, since changing it publishes no revision. The worker
	// starts the command with it, the task's own variables winning
	// (task.Command.WithProjectEnv), and resolves its secrets from its
	// own secrets file as the task's. It was added after the first
	// release: a worker older than it would ignore it, so a replica grants
	// a Run whose project has an env only to a session whose registration
	// read ReadProjectEnv.
	ProjectEnv string `json:"projectEnv,omitempty"`
}

// GiveBackRequest returns a grant the worker will not start (it is
// stopping, or cannot journal or hold it) so another worker can take the
// Run at once, instead of when its lease passes. It is fenced like every
// lease step and takes effect only on a grant not yet started: one whose
// start the replica acknowledged is answered GiveBackStarted and must be
// completed as usual. Reason is one of the GiveBack* reasons; the Run's
// event records it. Added after the first release: a replica older than
// it answers 404 not_found, and the grant then waits for its lease.
type GiveBackRequest struct {
	Lease
	Reason string `json:"reason"`
}

// Why a worker gives a grant back.
const (
	// GiveBackStopping: the worker is stopping (a signal, a drain, or an
	// error that ends it) and starts nothing more.
	GiveBackStopping = "worker_stopping"
	// GiveBackOverCapacity: the reply granted more than the worker asked
	// for.
	GiveBackOverCapacity = "over_capacity"
	// GiveBackJournal: the worker could not journal the grant, so it will
	// never start it.
	GiveBackJournal = "journal_failed"
	// GiveBackRestarted: the worker was started again after its earlier
	// process ended (a crash, SIGKILL) holding the grant, never started.
	GiveBackRestarted = "worker_restarted"
)

// GiveBackReply says what became of a grant given back.
type GiveBackReply struct {
	Reply string `json:"reply"`
}

// Give-back reply kinds.
const (
	GiveBackReleased = "released" // the Run is queued again (or, if a cancel was asked, cancelled)
	GiveBackStarted  = "started"  // its start was acknowledged: complete it as usual
	GiveBackGone     = "gone"     // no longer this lease (released, expired, ended): nothing to do
)

// Lease names one grant in every later step.
type Lease struct {
	AttemptID    string `json:"attemptId"`
	Token        string `json:"token"`
	LeaseVersion int64  `json:"leaseVersion"`
}

// DefaultIngressAddr is where a replica's worker ingress listens unless
// told otherwise (`ql serve --worker-addr`).
const DefaultIngressAddr = "127.0.0.1:8081"

// Lease reply kinds.
const (
	ReplyRenewed  = "renewed"  // go on; the lease now has LeaseVersion
	ReplyStop     = "stop"     // end the command (StopReason says why), then complete
	ReplyTerminal = "terminal" // the attempt is over here: kill, report nothing more
)

// Stop reasons.
const (
	StopCancelled = "cancelled"
	StopTimedOut  = "timed_out"
)

// StopWorkerShutdown is the error code of a stopped outcome whose command
// the worker ended because the worker itself was stopping (its stop
// timeout ran out), not on a stop reply. The replica records the attempt
// lost, as if the worker had died, so the retry policy's `lost` applies: a
// rolling restart of workers loses no Run that may be retried.
const StopWorkerShutdown = "worker_stopped"

// StartRequest acknowledges a grant just before the worker spawns it.
type StartRequest struct {
	Lease
}

// RenewRequest extends a lease; the worker renews every RunLease/3, and
// at once an attempt a pull or watch reply names in PullReply.Stop.
type RenewRequest struct {
	Lease
}

// LeaseReply answers start and renew. On renewed (and on stop, so the
// worker can still log and complete) LeaseVersion is the version every
// later step must carry and LeaseMs how long the lease lives from now.
// DeadlineMs is the time left before the command's timeout, after start.
//
// SessionState is the state, as of the answer, of the session the attempt
// was granted under (one of the Session* states), so a worker replaced by
// a newer session of its credential, or drained, hears it at its next
// renewal rather than its next heartbeat. It was added after the first
// release: a replica older than it leaves it out (empty), and a worker
// older than it ignores it (replies are decoded leniently).
type LeaseReply struct {
	Reply        string `json:"reply"`
	StopReason   string `json:"stopReason,omitempty"`
	LeaseVersion int64  `json:"leaseVersion"`
	LeaseMs      int64  `json:"leaseMs"`
	DeadlineMs   int64  `json:"deadlineMs"`
	SessionState string `json:"sessionState,omitempty"`
}

// LogRequest appends Data at Offset of the attempt's log. Offset must be
// the number of bytes the replica holds: a replay of an accepted chunk
// (same offset, same bytes) is accepted again without storing it twice; any
// other offset is refused with the held length.
type LogRequest struct {
	Lease
	Offset int64  `json:"offset"`
	Data   []byte `json:"data"`
}

// LogReply says how many bytes the replica holds and whether the cap was
// reached (the worker then stops sending output).
type LogReply struct {
	LogBytes  int64 `json:"logBytes"`
	Truncated bool  `json:"truncated"`
}

// How a command ended, as the worker saw it.
const (
	OutcomeExited      = "exited"       // ExitCode is set
	OutcomeSignaled    = "signaled"     // killed by a signal it did not get from us
	OutcomeSpawnFailed = "spawn_failed" // never started; ErrorCode/Message say why
	OutcomeStopped     = "stopped"      // ended by us after a stop reply or timeout
)

// CompleteRequest reports the end of an attempt.
type CompleteRequest struct {
	Lease
	Outcome      string `json:"outcome"`
	ExitCode     *int64 `json:"exitCode,omitempty"`
	ErrorCode    string `json:"errorCode,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	LogBytes     int64  `json:"logBytes"`
	// Signal is the signal that killed a signaled command (1–64). It was
	// added after the first release, and an ingress refuses fields it
	// does not know: a worker whose completion with a Signal is refused
	// invalid sends it again without (ErrorMessage still names the
	// signal), so a newer worker completes against an older replica.
	Signal int `json:"signal,omitempty"`
	// EndedMsAgo is how long before this send the command ended, counted
	// on the worker's monotonic clock when the request is sent (each send
	// of a retried report counts it again), never compared with the
	// replica's clock: the replica records the end at its database time
	// minus it, held between the attempt's start (and its Run's latest
	// event) and that database time, so a report the worker could deliver
	// only late keeps the command's own duration. 0 (or absent) is now.
	// It was added after Signal: a replica older than it refuses it as
	// unknown, and the worker sends the completion again without it, the
	// end then taken when the replica accepts the report.
	EndedMsAgo int64 `json:"endedMsAgo,omitempty"`
}

// MaxSignal bounds CompleteRequest.Signal (Linux's SIGRTMAX).
const MaxSignal = 64

// CompleteReply is the recorded end: the attempt's terminal state and the
// Run's state after it (retry_wait when the retry policy made Attempt N+1).
// A replay of an accepted completion gets the same reply.
type CompleteReply struct {
	AttemptState string `json:"attemptState"`
	RunState     string `json:"runState"`
}

// Error is the body of every non-2xx reply.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error codes of the ingress (HTTP status in brackets).
const (
	CodeInvalid         = "invalid"          // 400: malformed body or field
	CodeUnauthenticated = "unauthenticated"  // 401: missing, unknown or revoked credential
	CodeForbidden       = "forbidden"        // 403: session or attempt of another worker
	CodeNotFound        = "not_found"        // 404: no such session or attempt
	CodeFenced          = "fenced"           // 409: stale lease (token, version, expiry) or offset
	CodeTooLarge        = "too_large"        // 413: body over its cap
	CodeRateLimited     = "rate_limited"     // 429: too many requests from this worker
	CodeUnavailable     = "unavailable"      // 503: database unreachable; retry the same request
	CodeReplicaStopping = "replica_stopping" // 503: this replica is stopping; send the same request to another
	CodeInternal        = "internal"         // 500
	CodeSessionReplaced = "session_replaced" // 409: a newer session of this worker exists
)
