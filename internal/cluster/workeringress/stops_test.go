package workeringress

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// startedRun has a worker of the fixture register, pull the one Run
// admitted for it and start it, as a worker does before it spawns the
// command; it returns the worker's credential, its session and the grant.
func (f *fixture) startedRun(t *testing.T, name string) (cred, session string, g workerproto.Grant) {
	t.Helper()
	cred = f.worker(t, name)
	session = f.register(t, cred).SessionID
	f.admit(t, f.rt, name, 1, nil)
	pull := pullRequest(t, session, 0)
	var pulled workerproto.PullReply
	f.call(t, cred, workerproto.PathPull, pull, &pulled)
	if len(pulled.Grants) != 1 {
		t.Fatalf("%s pulled %d grants, want 1", name, len(pulled.Grants))
	}
	g = pulled.Grants[0]
	var started workerproto.LeaseReply
	f.call(t, cred, workerproto.PathStart, workerproto.StartRequest{Lease: workerproto.Lease{AttemptID: g.AttemptID, Token: pull.Token, LeaseVersion: g.LeaseVersion}}, &started)
	if started.Reply != workerproto.ReplyRenewed {
		t.Fatalf("%s's start: %+v", name, started)
	}
	return cred, session, g
}

// A Run cancelled while its command runs on a worker: the cancel, through
// another replica, wakes the waiting watch (every slot busy) or pull (a
// free slot) of the session holding the attempt, which answers that
// attempt's id at once — so the worker renews it now and hears stop,
// instead of at its next renewal, a third of the run lease later. The
// watch of another worker, waiting beside it, is not sent back to the
// database: a cancel wakes only the session it concerns.
func TestACancelWakesTheWaitingPullOrWatchOfTheSessionHoldingTheAttemptAndNoOther(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		max  int
	}{{"its watch, every slot busy", 0}, {"its pull, a slot free", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, Config{})
			f.listen(t)
			cred, session, g := f.startedRun(t, "cancelled")
			otherCred, otherSession, _ := f.startedRun(t, "bystander")

			const bystanderWait = 3 * time.Second
			bystanderWatch := pullRequest(t, otherSession, bystanderWait.Milliseconds())
			bystanderWatch.Max = 0
			bystander := f.pullAsync(t, otherCred, bystanderWatch)
			f.waitingPulls(t, 1)
			waiting := pullRequest(t, session, workerproto.MaxPullWait.Milliseconds())
			waiting.Max = tc.max
			reply := f.pullAsync(t, cred, waiting)
			f.waitingPulls(t, 2)

			other := f.env.Runtime(t, "other-replica", 30*time.Second)
			cancelAt := time.Now()
			if _, _, err := other.CancelRun(t.Context(), g.RunID, "test"); err != nil {
				t.Fatal(err)
			}
			got := awaitReply(t, reply, workerproto.MaxPullWait/2)
			took := time.Since(cancelAt)
			if !slices.Equal(got.Stop, []string{g.AttemptID}) || got.State != workerproto.SessionActive || len(got.Grants) != 0 {
				t.Fatalf("the waiting request answered %+v after its attempt's Run was cancelled, want stop [%s]", got, g.AttemptID)
			}
			if renewal := 30 * time.Second / 3; took >= renewal/2 {
				t.Fatalf("the stop was answered %s after the cancel, not within moments (a renewal comes every %s)", took, renewal)
			}
			t.Logf("the waiting request answered the stop %s after the cancel", took)

			if got := awaitReply(t, bystander, 2*bystanderWait); len(got.Stop) != 0 || got.State != workerproto.SessionActive {
				t.Fatalf("the other worker's watch answered %+v, want nothing to stop", got)
			}
			if n := f.logs.count(CodePullWaiting); n != 2 {
				t.Fatalf("%d waits began, want 2: the cancel sent the other worker's watch back to the database", n)
			}
			eventually(t, 5*time.Second, "the sessions waited on to be forgotten once no request waits", func() bool {
				f.h.stops.mu.Lock()
				defer f.h.stops.mu.Unlock()
				return len(f.h.stops.by) == 0
			})
		})
	}
}

// The stops are answered only after a stop-asked wake: a watch that
// arrives while a stop of its session's attempt is pending (its worker is
// ending that command) waits as any watch does, rather than answer the
// same stop again at once, over and over.
func TestAWatchArrivingWhileAStopIsPendingWaitsAsAnyWatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred, session, g := f.startedRun(t, "stopping")
	if _, _, err := f.rt.CancelRun(t.Context(), g.RunID, "test"); err != nil {
		t.Fatal(err)
	}
	watch := pullRequest(t, session, 500)
	watch.Max = 0
	start := time.Now()
	got := awaitReply(t, f.pullAsync(t, cred, watch), 10*time.Second)
	if len(got.Stop) != 0 || time.Since(start) < 500*time.Millisecond {
		t.Fatalf("a watch sent while a stop was pending answered %+v after %s, want nothing before its 500ms bound", got, time.Since(start))
	}
}

// A cancel whose notice no listener heard (the listener's connection was
// lost, and it was not yet listening again) is answered when the listener
// restarts: the restart sends every waiting pull and watch back to the
// database, which reads its session's stops too, since any notice sent
// meanwhile is lost.
func TestAListenersRestartHasEveryWaitingWatchReadItsStops(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred, session, g := f.startedRun(t, "unheard")
	watch := pullRequest(t, session, workerproto.MaxPullWait.Milliseconds())
	watch.Max = 0
	reply := f.pullAsync(t, cred, watch)
	f.waitingPulls(t, 1)
	if _, _, err := f.rt.CancelRun(t.Context(), g.RunID, "test"); err != nil {
		t.Fatal(err)
	}
	f.h.Notified(Notice{Relisten: true})
	if got := awaitReply(t, reply, workerproto.MaxPullWait/2); !slices.Equal(got.Stop, []string{g.AttemptID}) {
		t.Fatalf("the watch answered %+v after the listener's restart, want stop [%s]", got, g.AttemptID)
	}
}

// A cancel whose notice comes while the session has no pull or watch
// waiting on this replica (its worker between two requests) is answered by
// the session's next request at once: without it, the worker would hear
// the stop only at the attempt's next renewal, a third of the run lease
// later, and a watch sent meanwhile would wait out its whole bound.
func TestAStopNoticeThatFindsNoWaiterIsAnsweredByTheSessionsNextRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred, session, g := f.startedRun(t, "between-requests")
	if _, _, err := f.rt.CancelRun(t.Context(), g.RunID, "test"); err != nil {
		t.Fatal(err)
	}
	f.h.Notified(Notice{StopAsked: session})
	watch := pullRequest(t, session, workerproto.MaxPullWait.Milliseconds())
	watch.Max = 0
	sent := time.Now()
	got := awaitReply(t, f.pullAsync(t, cred, watch), workerproto.MaxPullWait/2)
	if !slices.Equal(got.Stop, []string{g.AttemptID}) {
		t.Fatalf("the next watch answered %+v after %s, want stop [%s] at once", got, time.Since(sent), g.AttemptID)
	}
	// Heard once: the session's following watch waits as any watch does.
	watch = pullRequest(t, session, 300)
	watch.Max = 0
	sent = time.Now()
	if got := awaitReply(t, f.pullAsync(t, cred, watch), 10*time.Second); len(got.Stop) != 0 || time.Since(sent) < 300*time.Millisecond {
		t.Fatalf("the watch after the stop was heard answered %+v after %s, want nothing before its 300ms bound", got, time.Since(sent))
	}
}

// The stops kept for sessions that do not ask are bounded in number and
// in age: a full set forgets its oldest, and a stop older than its time to
// live wakes nobody (that worker hears it at its renewal).
func TestUnheardStopsAreBoundedInNumberAndAge(t *testing.T) {
	t.Parallel()
	s := newSessionWakes()
	clock := time.Unix(1_000_000, 0)
	s.now = func() time.Time { return clock }
	s.wake("first")
	for i := range unheardStopsMax {
		clock = clock.Add(time.Millisecond)
		s.wake(fmt.Sprintf("session-%d", i))
	}
	if n := len(s.unheard); n != unheardStopsMax {
		t.Fatalf("%d stops kept, want the bound %d", n, unheardStopsMax)
	}
	if fired(s.join("first")) {
		t.Fatal("the oldest stop of a full set was kept, want it forgotten")
	}
	if !fired(s.join("session-1")) {
		t.Fatal("a kept stop did not wake its session's next request")
	}
	clock = clock.Add(unheardStopTTL)
	if fired(s.join("session-2")) {
		t.Fatal("a stop older than its time to live woke its session's next request")
	}
}

func fired(e *sessionWake) bool {
	select {
	case <-e.ch:
		return true
	default:
		return false
	}
}
