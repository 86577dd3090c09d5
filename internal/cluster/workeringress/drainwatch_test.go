package workeringress

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// drainedWatchAnswers is how soon a draining worker's watch must answer
// what concerns it: moments, far inside the third of the run lease after
// which the worker's next renewal would tell it.
const drainedWatchAnswers = time.Second

// drainingWatch keeps the draining watch of the session of a drained
// worker (its one Run started, another Run queued) waiting, checks that
// it does not answer the drain, and returns its reply channel.
func (f *fixture) drainingWatch(t *testing.T, name string) (cred string, g workerproto.Grant, reply <-chan workerproto.PullReply) {
	t.Helper()
	f.listen(t)
	cred, session, g := f.startedRun(t, name)
	if err := f.admin.WorkerDrain(t.Context(), name); err != nil {
		t.Fatal(err)
	}
	f.admit(t, f.rt, name+"-later", 1, f.h.Wake)
	watch := pullRequest(t, session, workerproto.MaxPullWait.Milliseconds())
	watch.Max, watch.Draining = 0, true
	reply = f.pullAsync(t, cred, watch)
	f.waitingPulls(t, 1)
	select {
	case got := <-reply:
		t.Fatalf("a draining worker's watch answered %+v at once, want it to wait through the drain it already knows of", got)
	case <-time.After(300 * time.Millisecond):
	}
	return cred, g, reply
}

// A drained worker whose command still runs keeps a draining watch: it
// waits through the drain it already knows of — where a plain watch of a
// draining session answers draining at once, over and over — and is
// answered within moments when its credential is revoked, or when its
// Run is cancelled (the stop named), never with a grant, however many
// Runs are queued.
func TestADrainingWorkersWatchWaitsThroughTheDrainAndAnswersARevocationOrACancelAtOnce(t *testing.T) {
	t.Parallel()
	t.Run("revocation", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		_, _, reply := f.drainingWatch(t, "drained-revoked")
		revokedAt := time.Now()
		if _, err := f.admin.WorkerRevoke(t.Context(), "drained-revoked"); err != nil {
			t.Fatal(err)
		}
		got := awaitReply(t, reply, workerproto.MaxPullWait/2)
		took := time.Since(revokedAt)
		if got.State != workerproto.SessionRevoked || len(got.Grants) != 0 {
			t.Fatalf("the draining watch answered %+v after the revocation, want revoked and no grant", got)
		}
		t.Logf("the draining watch answered the revocation %s after it", took)
		if took >= drainedWatchAnswers {
			t.Fatalf("the draining watch answered the revocation %s after it, want within %s", took, drainedWatchAnswers)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		_, g, reply := f.drainingWatch(t, "drained-cancelled")
		cancelAt := time.Now()
		if _, _, err := f.rt.CancelRun(t.Context(), g.RunID, "test"); err != nil {
			t.Fatal(err)
		}
		got := awaitReply(t, reply, workerproto.MaxPullWait/2)
		took := time.Since(cancelAt)
		if !slices.Equal(got.Stop, []string{g.AttemptID}) || got.State != workerproto.SessionDraining || len(got.Grants) != 0 {
			t.Fatalf("the draining watch answered %+v after the cancel, want draining, stop [%s] and no grant", got, g.AttemptID)
		}
		t.Logf("the draining watch answered the stop %s after the cancel", took)
		if took >= drainedWatchAnswers {
			t.Fatalf("the draining watch answered the stop %s after the cancel, want within %s", took, drainedWatchAnswers)
		}
		if n := f.env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE state = 'queued'`); n != 1 {
			t.Fatalf("%d Runs queued after the draining watch, want the one admitted after the drain still queued", n)
		}
	})
}

// A plain watch (an older worker's, or a worker's that does not know of
// its drain yet) of a draining session still answers draining at once, so
// the worker hears its drain; a pull that says it drains is refused, since
// a draining worker takes no work, with what to send instead.
func TestAPlainWatchOfADrainingSessionAnswersAtOnceAndAPullCannotSayItDrains(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred := f.worker(t, "drained-plain")
	session := f.register(t, cred).SessionID
	if err := f.admin.WorkerDrain(t.Context(), "drained-plain"); err != nil {
		t.Fatal(err)
	}
	watch := pullRequest(t, session, workerproto.MaxPullWait.Milliseconds())
	watch.Max = 0
	if got := awaitReply(t, f.pullAsync(t, cred, watch), workerproto.MaxPullWait/2); got.State != workerproto.SessionDraining {
		t.Fatalf("a plain watch of a draining session answered %+v, want draining at once", got)
	}
	pull := pullRequest(t, session, 0)
	pull.Draining = true
	status, raw, _ := f.post(t, cred, workerproto.PathPull, pull)
	if e := errorOf(t, raw); status != http.StatusBadRequest || e.Code != workerproto.CodeInvalid || !strings.Contains(e.Message, "max 0") {
		t.Fatalf("a pull of max 1 that says it drains answered %d %s, want 400 invalid saying to send max 0", status, raw)
	}
}
