package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// ingress is an in-test worker ingress: the remote peer of the agent,
// implementing the wire protocol with the fences the real one enforces —
// bearer credential, offer replay (same id and token: same grants; another
// token: refused), lease token and version, lease expiry on its own clock,
// log offsets, completion replay — so a client that breaks one fails here.
type ingress struct {
	t          testing.TB
	srv        *httptest.Server
	credential string
	leaseMs    int64
	logCap     int64
	// maxCapacity is the credential's max concurrency, which caps the
	// capacity a registration asks for; 0 caps nothing.
	maxCapacity int

	mu       sync.Mutex
	queue    []workerproto.Grant
	wake     chan struct{}
	offers   map[string]*offerRec
	attempts map[string]*attemptRec
	pulls    []workerproto.PullRequest
	requests int
	// dropPulls cuts the connection after answering that many pulls that
	// granted something: the reply is lost, the grant made.
	dropPulls int
	// renewDown answers every renewal 503 from then on.
	renewDown bool
	// answerDelay holds each start's and renewal's answer that long, as
	// an overloaded replica does.
	answerDelay time.Duration
	// renewals counts the renewals taken, renewReplays those answered as
	// the replay of one already taken; lateRenewal, when not 0, is the
	// one (counted from 1) held lateBy longer than answerDelay.
	renewals     int
	renewReplays int
	lateRenewal  int
	lateBy       time.Duration
	// hangRenewals takes every renewal and never answers it, as a hung
	// replica does, until the worker drops it; renewalsOpen counts those
	// held now, mostRenewalsOpen the most ever held at once.
	hangRenewals     bool
	renewalsOpen     int
	mostRenewalsOpen int
	// holdLogs stores each log chunk and holds its answer until the worker
	// gives the request up, as a replica that commits and answers too late
	// does; heldGivenUp counts the requests so given up.
	holdLogs    bool
	heldGivenUp int
	// logDelay holds each log chunk's answer that long; logRequests
	// counts the log requests, logAbandoned those the worker gave up
	// before their answer.
	logDelay     time.Duration
	logRequests  int
	logAbandoned int
	// state is the session state replies carry; registering again ends
	// an expired one.
	state     string
	registers int
	// beforeReads decodes registrations as a replica older than
	// RegisterRequest.Reads does: refusing the field as unknown.
	// registeredReads records the reads of every registration taken.
	beforeReads     bool
	registeredReads [][]string
	// heartbeatReads records the reads of every heartbeat taken (a
	// replica older than HeartbeatRequest.Reads refuses the field, as
	// beforeReads says), refusedHeartbeats counts those refused for it.
	heartbeatReads    [][]string
	refusedHeartbeats int
	// beforeSignal decodes completions as a replica older than the
	// signal field (and so than endedMsAgo) does: refusing them as
	// unknown.
	beforeSignal bool
	// refusedSignal counts completions refused for carrying either.
	refusedSignal int
	// completeDown answers that many completion sends 503, as an
	// unreachable replica's would be; endedAgoSent records the
	// EndedMsAgo of every completion send taken apart.
	completeDown int
	endedAgoSent []int64
	// beforeEnd answers the end of a session as a replica older than it
	// does (404 not_found); ended counts the sessions ended.
	beforeEnd bool
	ended     int
	// session is the session the last registration opened; a start or
	// renewal reply says the state of the session its grant was pulled
	// under, as the replica does: replaced once a newer registration
	// exists. beforeSessionState leaves the state out, as a replica older
	// than the field does. registerDelay holds a registration's reply
	// after the new session is in force.
	session            string
	beforeSessionState bool
	registerDelay      time.Duration
	// overGrant grants that many Runs more than a pull asks for (a
	// misbehaving replica). givenBack records the grants given back;
	// beforeGiveBack answers a give-back as a replica older than it does
	// (404 not_found).
	overGrant      int
	givenBack      []workerproto.GiveBackRequest
	beforeGiveBack bool
	// watches counts the watches (pulls of max 0) answered, takenWatches
	// those that began to wait; beforeWatch refuses them as a replica
	// older than the watch does (400 invalid), counted in refusedWatches.
	watches        int
	takenWatches   int
	beforeWatch    bool
	refusedWatches int
	// revoked refuses the credential from then on, as the replica does
	// once an admin revoked it.
	revoked bool
	// beforeStop leaves a pull's or watch's stop field out, as a replica
	// older than it does: a stop set by a test is then heard only at the
	// attempt's next renewal.
	beforeStop bool
	// drainWatches counts the draining watches taken; beforeDrainWatch
	// refuses them as a replica older than the field does (400 invalid),
	// drainWatchAtOnce answers them at once as a plain watch of a
	// draining session, as a replica that ignored the field would.
	drainWatches     int
	beforeDrainWatch bool
	drainWatchAtOnce bool
}

// completeBeforeSignal is the completion body of a replica released
// before CompleteRequest.Signal.
type completeBeforeSignal struct {
	workerproto.Lease
	Outcome      string `json:"outcome"`
	ExitCode     *int64 `json:"exitCode,omitempty"`
	ErrorCode    string `json:"errorCode,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	LogBytes     int64  `json:"logBytes"`
}

type offerRec struct {
	token  string
	grants []workerproto.Grant
}

type attemptRec struct {
	grant     workerproto.Grant
	session   string
	tokenHash [32]byte
	version   int64
	leaseEnd  time.Time
	starts    int
	stop      string
	log       []byte
	offsets   []int64
	complete  *workerproto.CompleteRequest
	reply     workerproto.CompleteReply
	// reports counts requests after the lease was gone (refused).
	late int
	// stopTold: a pull or watch reply named the stop, as the replica's
	// does once a cancel woke it (once per stop).
	stopTold bool
}

const testCredential = workerproto.CredentialPrefix + "test-credential-0123456789"

func newIngress(t testing.TB, leaseMs int64) *ingress {
	t.Helper()
	in := &ingress{t: t, credential: testCredential, leaseMs: leaseMs, logCap: workerproto.DefaultLogCap,
		wake: make(chan struct{}, 1), offers: map[string]*offerRec{}, attempts: map[string]*attemptRec{}, state: workerproto.SessionActive}
	mux := http.NewServeMux()
	mux.HandleFunc(workerproto.PathRegister, in.register)
	mux.HandleFunc(workerproto.PathHeartbeat, in.heartbeat)
	mux.HandleFunc(workerproto.PathPull, in.pull)
	mux.HandleFunc(workerproto.PathStart, in.start)
	mux.HandleFunc(workerproto.PathRenew, in.renew)
	mux.HandleFunc(workerproto.PathLog, in.appendLog)
	mux.HandleFunc(workerproto.PathComplete, in.complete)
	mux.HandleFunc(workerproto.PathEnd, in.end)
	mux.HandleFunc(workerproto.PathGiveBack, in.giveBack)
	in.srv = httptest.NewServer(mux)
	t.Cleanup(in.srv.Close)
	return in
}

// enqueue offers a Run running c.
// grantScheduledForMs is the occurrence of every grant enqueue makes
// (2026-03-08T00:00:00Z), due 4.5 s later as a jitter would move it.
const grantScheduledForMs = 1_772_928_000_000

func (in *ingress) enqueue(t testing.TB, c task.Command) workerproto.Grant {
	t.Helper()
	raw, err := task.EncodeCommand(c)
	if err != nil {
		t.Fatal(err)
	}
	// The digest is the one publishing would record, over the command as
	// the worker decodes it.
	stored, err := task.DecodeCommand(raw)
	if err != nil {
		t.Fatal(err)
	}
	spec := task.Spec{Name: "job", Enabled: true, Command: stored}
	projectID, taskID := ids.New(), ids.New()
	plan, err := task.PlanExecution(task.Revision{ProjectID: projectID, TaskID: taskID, Revision: 1, Spec: spec,
		ContentDigest: task.ContentDigest(projectID, taskID, spec)}, task.RemoteWorker)
	if err != nil {
		t.Fatal(err)
	}
	g := workerproto.Grant{AttemptID: ids.New(), RunID: ids.New(), AttemptNumber: 1, Project: "demo", Task: "job",
		LeaseVersion: 1, LeaseMs: in.leaseMs, ExecutionID: plan.ID, Command: raw, Digest: plan.Digest, ProjectID: projectID, TaskID: taskID,
		Trigger: "nightly", ScheduledForMs: grantScheduledForMs, DueAtMs: grantScheduledForMs + 4500, Origin: string(run.OriginBackfill)}
	in.mu.Lock()
	in.queue = append(in.queue, g)
	in.mu.Unlock()
	select {
	case in.wake <- struct{}{}:
	default:
	}
	return g
}

func (in *ingress) attempt(id string) attemptRec {
	in.mu.Lock()
	defer in.mu.Unlock()
	a := in.attempts[id]
	if a == nil {
		return attemptRec{}
	}
	return *a
}

// setStop asks a stop of an attempt, as a cancel does, and wakes the
// waiting pull (a watch looks every 10 ms).
func (in *ingress) setStop(id, reason string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.attempts[id].stop = reason
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

// stopsToTell are the attempts of session a stop was asked of that no
// pull or watch reply named yet (none when the fake is older than the
// field); in.mu is held.
func (in *ingress) stopsToTell(session string) []string {
	if in.beforeStop {
		return nil
	}
	var out []string
	for id, a := range in.attempts {
		if a.session == session && a.stop != "" && !a.stopTold && a.starts > 0 && a.complete == nil {
			a.stopTold = true
			out = append(out, id)
		}
	}
	return out
}

func fail(w http.ResponseWriter, status int, code, format string, args ...any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(workerproto.Error{Code: code, Message: fmt.Sprintf(format, args...)})
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// decode authenticates the request and reads its body.
func (in *ingress) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	in.mu.Lock()
	in.requests++
	revoked := in.revoked
	in.mu.Unlock()
	if revoked || r.Header.Get("Authorization") != "Bearer "+in.credential {
		fail(w, http.StatusUnauthorized, workerproto.CodeUnauthenticated, "unknown credential")
		return false
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		fail(w, http.StatusBadRequest, workerproto.CodeInvalid, "%v", err)
		return false
	}
	return true
}

// registerBeforeReads is the registration body of a replica released
// before RegisterRequest.Reads.
type registerBeforeReads struct {
	Labels   map[string]string `json:"labels,omitempty"`
	Capacity int               `json:"capacity"`
	Version  string            `json:"version"`
}

func (in *ingress) register(w http.ResponseWriter, r *http.Request) {
	var req workerproto.RegisterRequest
	in.mu.Lock()
	old := in.beforeReads
	in.mu.Unlock()
	if old {
		var o registerBeforeReads
		if !in.decode(w, r, &o) {
			return
		}
		req = workerproto.RegisterRequest{Labels: o.Labels, Capacity: o.Capacity, Version: o.Version}
	} else if !in.decode(w, r, &req) {
		return
	}
	in.mu.Lock()
	in.registers++
	in.registeredReads = append(in.registeredReads, req.Reads)
	if in.state == workerproto.SessionExpired {
		in.state = workerproto.SessionActive
	}
	session := ids.New()
	in.session = session
	delay := in.registerDelay
	state := in.state
	in.mu.Unlock()
	time.Sleep(delay)
	capacity := req.Capacity
	if in.maxCapacity > 0 {
		capacity = min(capacity, in.maxCapacity)
	}
	reply(w, workerproto.RegisterReply{SessionID: session, Generation: 1, WorkerName: "w1", State: state, Labels: req.Labels, Capacity: capacity,
		HeartbeatMs: workerproto.HeartbeatEvery.Milliseconds(), SessionLeaseMs: workerproto.SessionLease.Milliseconds(), RunLeaseMs: in.leaseMs, LogCapBytes: in.logCap})
}

// heartbeatBeforeReads is the heartbeat body of a replica released
// before HeartbeatRequest.Reads.
type heartbeatBeforeReads struct {
	SessionID string `json:"sessionId"`
	Running   int    `json:"running"`
}

func (in *ingress) heartbeat(w http.ResponseWriter, r *http.Request) {
	var req workerproto.HeartbeatRequest
	in.mu.Lock()
	old := in.beforeReads
	in.mu.Unlock()
	if old {
		var o heartbeatBeforeReads
		if !in.decode(w, r, &o) {
			in.mu.Lock()
			in.refusedHeartbeats++
			in.mu.Unlock()
			return
		}
		req = workerproto.HeartbeatRequest{SessionID: o.SessionID, Running: o.Running}
	} else if !in.decode(w, r, &req) {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.heartbeatReads = append(in.heartbeatReads, req.Reads)
	reply(w, workerproto.HeartbeatReply{State: in.state, SessionLeaseMs: workerproto.SessionLease.Milliseconds(), ReadsKept: req.Reads != nil})
}

func (in *ingress) end(w http.ResponseWriter, r *http.Request) {
	in.mu.Lock()
	older := in.beforeEnd
	in.mu.Unlock()
	if older {
		fail(w, http.StatusNotFound, workerproto.CodeNotFound, "no worker ingress path %s; the paths are under /worker/v1/", r.URL.Path)
		return
	}
	var req workerproto.EndRequest
	if !in.decode(w, r, &req) {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.ended++
	reply(w, workerproto.EndReply{State: workerproto.SessionEnded})
}

func (in *ingress) giveBack(w http.ResponseWriter, r *http.Request) {
	in.mu.Lock()
	older := in.beforeGiveBack
	in.mu.Unlock()
	if older {
		fail(w, http.StatusNotFound, workerproto.CodeNotFound, "no worker ingress path %s; the paths are under /worker/v1/", r.URL.Path)
		return
	}
	var req workerproto.GiveBackRequest
	if !in.decode(w, r, &req) {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if a := in.fenced(w, req.Lease); a != nil {
		in.givenBack = append(in.givenBack, req)
		reply(w, workerproto.GiveBackReply{Reply: workerproto.GiveBackReleased})
	}
}

// watch answers a pull of max 0 as the replica does: the session's state
// once it is no longer active (for a draining worker's watch, once it
// ended: draining is no news to it), or a stop asked of one of its
// attempts, or at the wait's bound, never a grant; a revoked credential's
// waiting watch answers revoked, as the replica's woken one does. The
// fake has no wake for a state set by a test, so it looks every 10 ms.
func (in *ingress) watch(w http.ResponseWriter, r *http.Request, req workerproto.PullRequest, deadline <-chan time.Time) {
	in.mu.Lock()
	older := in.beforeWatch || (req.Draining && in.beforeDrainWatch)
	if older {
		in.refusedWatches++
	} else {
		in.takenWatches++
	}
	if req.Draining && !older {
		in.drainWatches++
	}
	atOnce := in.drainWatchAtOnce
	in.mu.Unlock()
	switch {
	case req.Draining && older:
		fail(w, http.StatusBadRequest, workerproto.CodeInvalid, "the body of %s is not the JSON it takes: unknown field \"draining\"", r.URL.Path)
		return
	case older:
		fail(w, http.StatusBadRequest, workerproto.CodeInvalid, "max 0 is outside 1–%d", workerproto.MaxCapacity)
		return
	}
	look := time.NewTicker(10 * time.Millisecond)
	defer look.Stop()
	for {
		in.mu.Lock()
		state := in.state
		if in.revoked {
			state = workerproto.SessionRevoked
		}
		stops := in.stopsToTell(req.SessionID)
		in.mu.Unlock()
		if len(stops) > 0 {
			reply(w, workerproto.PullReply{State: state, Grants: []workerproto.Grant{}, Stop: stops})
			return
		}
		// A draining worker's watch takes its drain as no news, unless the
		// fake stands for a replica that ignores the field.
		settled := state == workerproto.SessionActive || (req.Draining && !atOnce && state == workerproto.SessionDraining)
		if !settled {
			in.mu.Lock()
			in.watches++
			in.mu.Unlock()
			reply(w, workerproto.PullReply{State: state, Grants: []workerproto.Grant{}})
			return
		}
		select {
		case <-look.C:
		case <-deadline:
			in.mu.Lock()
			in.watches++
			in.mu.Unlock()
			reply(w, workerproto.PullReply{State: state, Grants: []workerproto.Grant{}})
			return
		case <-r.Context().Done():
			return
		}
	}
}

func (in *ingress) pull(w http.ResponseWriter, r *http.Request) {
	var req workerproto.PullRequest
	if !in.decode(w, r, &req) {
		return
	}
	deadline := time.NewTimer(time.Duration(req.WaitMs) * time.Millisecond)
	defer deadline.Stop()
	if req.Max == 0 {
		in.watch(w, r, req, deadline.C)
		return
	}
	for {
		in.mu.Lock()
		in.pulls = append(in.pulls, req)
		if o, ok := in.offers[req.OfferID]; ok {
			// As the database does, a replay's leases are what is left of
			// them now, not their whole length.
			grants := make([]workerproto.Grant, len(o.grants))
			for i, g := range o.grants {
				g.LeaseMs = time.Until(in.attempts[g.AttemptID].leaseEnd).Milliseconds()
				grants[i] = g
			}
			in.mu.Unlock()
			if o.token != req.Token {
				fail(w, http.StatusConflict, workerproto.CodeFenced, "offer %s was made with another token", req.OfferID)
				return
			}
			reply(w, workerproto.PullReply{State: in.state, Grants: grants})
			return
		}
		if stops := in.stopsToTell(req.SessionID); len(stops) > 0 {
			state := in.state
			in.mu.Unlock()
			reply(w, workerproto.PullReply{State: state, Grants: []workerproto.Grant{}, Stop: stops})
			return
		}
		if in.state != workerproto.SessionActive {
			// Draining and replaced sessions get no new work.
			state := in.state
			in.mu.Unlock()
			reply(w, workerproto.PullReply{State: state})
			return
		}
		if len(in.queue) > 0 {
			n := min(req.Max+in.overGrant, len(in.queue))
			grants := append([]workerproto.Grant{}, in.queue[:n]...)
			in.queue = in.queue[n:]
			in.offers[req.OfferID] = &offerRec{token: req.Token, grants: grants}
			for _, g := range grants {
				in.attempts[g.AttemptID] = &attemptRec{grant: g, session: req.SessionID, tokenHash: sha256.Sum256([]byte(req.Token)), version: 1,
					leaseEnd: time.Now().Add(time.Duration(in.leaseMs) * time.Millisecond)}
			}
			drop := in.dropPulls > 0 && len(grants) > 0
			if drop {
				in.dropPulls--
			}
			state := in.state
			in.mu.Unlock()
			if drop {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
			reply(w, workerproto.PullReply{State: state, Grants: grants})
			return
		}
		in.pulls = in.pulls[:len(in.pulls)-1]
		in.mu.Unlock()
		select {
		case <-in.wake:
		case <-deadline.C:
			reply(w, workerproto.PullReply{State: workerproto.SessionActive})
			return
		case <-r.Context().Done():
			return
		}
	}
}

// fenced checks a lease the way the real ingress does; in.mu is held.
func (in *ingress) fenced(w http.ResponseWriter, l workerproto.Lease) *attemptRec {
	return in.fencedAt(w, l, false)
}

// heldBy checks the lease of a log chunk or a completion the way the real
// ingress does: by its holder, under the current version or one before it
// (a renewal crossed the request); in.mu is held.
func (in *ingress) heldBy(w http.ResponseWriter, l workerproto.Lease) *attemptRec {
	return in.fencedAt(w, l, true)
}

func (in *ingress) fencedAt(w http.ResponseWriter, l workerproto.Lease, older bool) *attemptRec {
	a := in.attempts[l.AttemptID]
	switch {
	case a == nil:
		fail(w, http.StatusNotFound, workerproto.CodeNotFound, "no attempt %s", l.AttemptID)
	case sha256.Sum256([]byte(l.Token)) != a.tokenHash:
		fail(w, http.StatusConflict, workerproto.CodeFenced, "stale lease token")
	case l.LeaseVersion > a.version || (l.LeaseVersion < a.version && !older):
		fail(w, http.StatusConflict, workerproto.CodeFenced, "stale lease version %d (current %d)", l.LeaseVersion, a.version)
	case time.Now().After(a.leaseEnd) && a.complete == nil:
		a.late++
		fail(w, http.StatusConflict, workerproto.CodeFenced, "the lease expired")
	default:
		return a
	}
	return nil
}

func (in *ingress) leaseReply(a *attemptRec) workerproto.LeaseReply {
	a.version++
	a.leaseEnd = time.Now().Add(time.Duration(in.leaseMs) * time.Millisecond)
	return in.currentLease(a)
}

// currentLease answers the lease as it stands, as the replica answers the
// replay of a renewal whose answer the worker never had.
func (in *ingress) currentLease(a *attemptRec) workerproto.LeaseReply {
	rep := workerproto.LeaseReply{Reply: workerproto.ReplyRenewed, LeaseVersion: a.version, LeaseMs: in.leaseMs, DeadlineMs: 3600_000}
	switch {
	case in.beforeSessionState:
	case a.session != in.session:
		rep.SessionState = workerproto.SessionReplaced
	default:
		rep.SessionState = in.state
	}
	if a.stop != "" {
		rep.Reply, rep.StopReason = workerproto.ReplyStop, a.stop
	}
	return rep
}

func (in *ingress) start(w http.ResponseWriter, r *http.Request) {
	var req workerproto.StartRequest
	if !in.decode(w, r, &req) {
		return
	}
	in.delayAnswer()
	in.mu.Lock()
	defer in.mu.Unlock()
	if a := in.fenced(w, req.Lease); a != nil {
		a.starts++
		reply(w, in.leaseReply(a))
	}
}

func (in *ingress) renew(w http.ResponseWriter, r *http.Request) {
	var req workerproto.RenewRequest
	if !in.decode(w, r, &req) {
		return
	}
	in.mu.Lock()
	in.renewals++
	var late time.Duration
	if in.renewals == in.lateRenewal {
		late = in.lateBy
	}
	hang := in.hangRenewals
	if hang {
		in.renewalsOpen++
		in.mostRenewalsOpen = max(in.mostRenewalsOpen, in.renewalsOpen)
	}
	in.mu.Unlock()
	if hang {
		// Read to its end, so the server watches the connection and the
		// request's context ends when the worker drops it.
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
		in.mu.Lock()
		in.renewalsOpen--
		in.mu.Unlock()
		return
	}
	time.Sleep(late)
	in.delayAnswer()
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.renewDown {
		fail(w, http.StatusServiceUnavailable, workerproto.CodeUnavailable, "database unreachable")
		return
	}
	if a := in.attempts[req.AttemptID]; a != nil && sha256.Sum256([]byte(req.Token)) == a.tokenHash && req.LeaseVersion+1 == a.version && time.Now().Before(a.leaseEnd) {
		// The replay of a renewal sent again before its answer.
		in.renewReplays++
		reply(w, in.currentLease(a))
		return
	}
	if a := in.fenced(w, req.Lease); a != nil {
		reply(w, in.leaseReply(a))
	}
}

// delayAnswer waits answerDelay, without holding the ingress.
func (in *ingress) delayAnswer() {
	in.mu.Lock()
	d := in.answerDelay
	in.mu.Unlock()
	time.Sleep(d)
}

func (in *ingress) setAnswerDelay(d time.Duration) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.answerDelay = d
}

// runningNow counts the attempts started and not complete, and the Runs
// still queued.
func (in *ingress) runningNow() (running, queued int) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, a := range in.attempts {
		if a.starts > 0 && a.complete == nil {
			running++
		}
	}
	return running, len(in.queue)
}

func (in *ingress) appendLog(w http.ResponseWriter, r *http.Request) {
	var req workerproto.LogRequest
	if !in.decode(w, r, &req) {
		return
	}
	in.mu.Lock()
	in.logRequests++
	a := in.heldBy(w, req.Lease)
	if a == nil {
		in.mu.Unlock()
		return
	}
	if len(req.Data) > workerproto.MaxLogChunk {
		in.mu.Unlock()
		fail(w, http.StatusRequestEntityTooLarge, workerproto.CodeTooLarge, "chunk of %d bytes", len(req.Data))
		return
	}
	held := int64(len(a.log))
	switch {
	case req.Offset == held:
		a.log = append(a.log, req.Data...)
		a.offsets = append(a.offsets, req.Offset)
	case req.Offset < held && a.chunkAt(req.Offset, req.Data):
		// a replay of an accepted chunk: the same bytes at the same
		// offset, as the replica accepts it (its stored chunk's bytes)
	default:
		in.mu.Unlock()
		fail(w, http.StatusConflict, workerproto.CodeFenced, "offset %d, the log holds %d bytes", req.Offset, held)
		return
	}
	answer := workerproto.LogReply{LogBytes: int64(len(a.log)), Truncated: int64(len(a.log)) >= in.logCap}
	hold, delay := in.holdLogs, in.logDelay
	in.mu.Unlock()
	if hold {
		<-r.Context().Done()
		in.mu.Lock()
		in.heldGivenUp++
		in.mu.Unlock()
		return
	}
	select {
	case <-time.After(delay):
		reply(w, answer)
	case <-r.Context().Done():
		in.mu.Lock()
		in.logAbandoned++
		in.mu.Unlock()
	}
}

// chunkAt reports whether a chunk stored at offset holds exactly data.
func (a *attemptRec) chunkAt(offset int64, data []byte) bool {
	for i, at := range a.offsets {
		if at != offset {
			continue
		}
		end := int64(len(a.log))
		if i+1 < len(a.offsets) {
			end = a.offsets[i+1]
		}
		return bytes.Equal(a.log[at:end], data)
	}
	return false
}

func (in *ingress) complete(w http.ResponseWriter, r *http.Request) {
	var req workerproto.CompleteRequest
	in.mu.Lock()
	old, down := in.beforeSignal, in.completeDown > 0
	if down {
		in.completeDown--
	}
	in.mu.Unlock()
	if old {
		var o completeBeforeSignal
		if !in.decode(w, r, &o) {
			in.mu.Lock()
			in.refusedSignal++
			in.mu.Unlock()
			return
		}
		req = workerproto.CompleteRequest{Lease: o.Lease, Outcome: o.Outcome, ExitCode: o.ExitCode, ErrorCode: o.ErrorCode, ErrorMessage: o.ErrorMessage, LogBytes: o.LogBytes}
	} else if !in.decode(w, r, &req) {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.endedAgoSent = append(in.endedAgoSent, req.EndedMsAgo)
	if down {
		fail(w, http.StatusServiceUnavailable, workerproto.CodeUnavailable, "the database is unreachable")
		return
	}
	a := in.heldBy(w, req.Lease)
	if a == nil {
		return
	}
	if a.complete != nil {
		// A replay's EndedMsAgo, counted again at each send, differs from
		// the first send's; the replica answers a replay by its lease.
		again, recorded := req, *a.complete
		again.EndedMsAgo, recorded.EndedMsAgo = 0, 0
		same, _ := json.Marshal(again)
		first, _ := json.Marshal(recorded)
		if !bytes.Equal(same, first) {
			fail(w, http.StatusConflict, workerproto.CodeFenced, "the attempt was completed otherwise")
			return
		}
		reply(w, a.reply)
		return
	}
	if req.LogBytes != int64(len(a.log)) {
		fail(w, http.StatusConflict, workerproto.CodeFenced, "log bytes %d, the log holds %d", req.LogBytes, len(a.log))
		return
	}
	a.complete = &req
	a.reply = workerproto.CompleteReply{AttemptState: outcomeState(req), RunState: "terminal"}
	reply(w, a.reply)
}

func outcomeState(req workerproto.CompleteRequest) string {
	switch {
	case req.Outcome == workerproto.OutcomeExited && req.ExitCode != nil && *req.ExitCode == 0:
		return "succeeded"
	case req.Outcome == workerproto.OutcomeStopped && req.ErrorCode == workerproto.StopTimedOut:
		return "timed_out"
	case req.Outcome == workerproto.OutcomeStopped:
		return "cancelled"
	}
	return "failed"
}

// waitFor polls cond until it holds or a minute passes: a bound of the
// harness, not an assertion about speed; under the race detector on a
// loaded machine a command and the sending of its output take several
// times as long as on a quiet one.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (in *ingress) completed(id string) workerproto.CompleteRequest {
	in.t.Helper()
	var out workerproto.CompleteRequest
	waitFor(in.t, "attempt "+id+" to complete", func() bool {
		a := in.attempt(id)
		if a.complete != nil {
			out = *a.complete
			return true
		}
		return false
	})
	return out
}

func shell(script string) task.Command {
	return task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: script, TimeoutMs: time.Hour.Milliseconds()}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
