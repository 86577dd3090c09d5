package executor

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// errorsSeen collects what a dispatcher reports to its OnError.
type errorsSeen struct {
	mu   sync.Mutex
	list []string
}

func (e *errorsSeen) add(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, err.Error())
}

func (e *errorsSeen) all() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.list)
}

// A command's result that the store refuses for longer than one write may
// take (another process holding SQLite's write lock; a full disk refuses
// the same way) is recorded once the store takes it again, however long
// that is: the Run does not stay running, its command long ended, until the
// next start. The operator is told once that the write waits.
func TestAResultIsRecordedHoweverLongTheStoreRefusesIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	gate := filepath.Join(h.dir, "go")
	runID := h.admit(t, shell(`while [ ! -e "`+gate+`" ]; do sleep 0.05; done; echo done`, time.Minute))
	var seen errorsSeen
	d, sig := h.dispatcher(t, dispatcherOpts{onError: seen.add})
	d.Wake()
	deadline := time.Now().Add(30 * time.Second)
	for h.detail(t, runID).Attempts[0].State != run.AttemptRunning {
		if time.Now().After(deadline) {
			t.Fatalf("the attempt never ran: %+v", h.detail(t, runID).Attempts)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Another connection takes the write lock and keeps it past the
	// longest a single write may wait, while the command ends.
	conn, err := h.raw.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	held := time.Now()
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(recordTimeout + 2*time.Second)
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	t.Logf("the write lock was held %s", time.Since(held).Round(time.Millisecond))

	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the dispatcher reported %q", seen.all())
		}
	})
	sig.wait(t, 1)
	if got := h.detail(t, runID); got.Run.State != run.Succeeded {
		t.Fatalf("the Run is %s after the store took writes again, want succeeded", got.Run.State)
	}
	errs := seen.all()
	if len(errs) != 1 || !strings.Contains(errs[0], "cannot record the result of attempt") || !strings.Contains(errs[0], "trying again") {
		t.Fatalf("the dispatcher reported %q, want one note that the result waits for the store", errs)
	}
}

// refusedStart refuses the first AttemptRunning as a store that cannot
// write does (the disk full, the write lock held).
type refusedStart struct {
	Store
	refused atomic.Int32
}

func (r *refusedStart) AttemptRunning(ctx context.Context, attemptID string, pid int) error {
	if r.refused.Add(1) == 1 {
		return qlerror.New(qlerror.Unavailable, "injected: the disk is full")
	}
	return r.Store.AttemptRunning(ctx, attemptID, pid)
}

// A command whose start the store refused runs to its end all the same,
// and its start is recorded before its result: the attempt does not stay
// starting with its Run running for good, as it did when only the result
// was written and the store refused it (a starting attempt cannot succeed).
func TestACommandWhoseStartTheStoreRefusedIsRecordedStartedThenFinished(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	runID := h.admit(t, shell("echo ran", time.Minute))
	refusing := &refusedStart{Store: h.store}
	d, sig := h.dispatcherOn(t, refusing, dispatcherOpts{})
	d.Wake()
	sig.wait(t, 1)
	if n := refusing.refused.Load(); n != 2 {
		t.Fatalf("AttemptRunning was called %d times, want the refused call and the one before the result", n)
	}
	got := h.detail(t, runID)
	want := []string{run.EventCreated, run.EventQueued, run.EventRunning, run.EventAttemptStarted, run.EventSucceeded}
	if got.Run.State != run.Succeeded || !slices.Equal(names(got), want) || !strings.Contains(got.Events[3].Payload, `"pid":`) {
		t.Fatalf("the Run is %s with events %+v, want succeeded with %v, the start naming its pid", got.Run.State, got.Events, want)
	}
}

// A log whose write failed (a full disk) keeps taking the command's output
// without blocking it, and says how many bytes are missing: in the error the
// operator reads, and in a last line of the file when the disk has room for
// it again by the end.
func TestALogThatCouldNotBeWrittenSaysHowManyBytesAreMissing(t *testing.T) {
	t.Parallel()
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	l := &cappedLog{file: full, cap: 1 << 20}
	for range 3 {
		if n, err := l.Write(bytes.Repeat([]byte("x"), 100)); n != 100 || err != nil {
			t.Fatalf("a write to a full disk returned %d, %v; want all of it taken, no error", n, err)
		}
	}
	// The disk has room again by the command's end.
	path := filepath.Join(t.TempDir(), "a.log")
	if l.file, err = os.Create(path); err != nil {
		t.Fatal(err)
	}
	full.Close()
	err = l.Close()
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "300 bytes of the command's output were not written") {
		t.Fatalf("Close = %v, want ENOSPC with the 300 bytes missing", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "\n[qinglong: 300 bytes of output are missing here: the log could not be written (no space left on device)]\n"; string(b) != want || l.stored != int64(len(want)) {
		t.Fatalf("the log reads %q (%d bytes counted), want %q", b, l.stored, want)
	}
}

// refusedFinish refuses the first refusals AttemptFinish calls as a full
// disk does until someone frees space, the store's clock moving on a second
// each.
type refusedFinish struct {
	Store
	h        *harness
	refusals int32
	refused  atomic.Int32
}

const refusedFinishes = 3

func (r *refusedFinish) AttemptFinish(ctx context.Context, a run.Attempt) (run.State, error) {
	if r.refused.Add(1) <= r.refusals {
		r.h.nowMs.Add(time.Second.Milliseconds())
		return "", qlerror.New(qlerror.Unavailable, "injected: the disk is full")
	}
	return r.Store.AttemptFinish(ctx, a)
}

// A result the store takes only seconds after the command ended keeps the
// command's end as the attempt's, the Run's and the end event's time: the
// duration an operator reads is the command's, not the outage's.
func TestAResultRecordedLateKeepsTheTimeItsCommandEnded(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	runID := h.admit(t, shell("true", time.Minute))
	refusing := &refusedFinish{Store: h.store, h: h, refusals: refusedFinishes}
	d, sig := h.dispatcherOn(t, refusing, dispatcherOpts{})
	d.Wake()
	sig.wait(t, 1)
	got := h.detail(t, runID)
	a := got.Attempts[0]
	if got.Run.State != run.Succeeded || a.StartedAtMs == nil || a.FinishedAtMs == nil || got.Run.FinishedAtMs == nil {
		t.Fatalf("the Run is %s, its attempt %+v; want succeeded with start and finish times", got.Run.State, a)
	}
	end := got.Events[len(got.Events)-1]
	took := time.Duration(*a.FinishedAtMs-*a.StartedAtMs) * time.Millisecond
	if took >= time.Second || *got.Run.FinishedAtMs != *a.FinishedAtMs || end.Name != run.EventSucceeded || end.CreatedAtMs != *a.FinishedAtMs {
		t.Fatalf("the attempt took %s, the Run finished at %d and %s was written at %d, the attempt finished at %d; want under the %ds the store refused the result, all at the command's end",
			took, *got.Run.FinishedAtMs, end.Name, end.CreatedAtMs, *a.FinishedAtMs, refusedFinishes)
	}
}

// A result the store still refuses when the server's stop can wait no
// longer (a full disk) is kept in a file beside the owner's lock, the stop
// is clean, and the next start records it as the command ended — the Run
// succeeded, at its command's end — instead of finding the attempt lost.
func TestAResultUnrecordedAtTheStopIsRecordedAtTheNextStartNotLost(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	runID := h.admit(t, shell("exit 0", time.Minute))
	refusing := &refusedFinish{Store: h.store, h: h, refusals: math.MaxInt32}
	var seen errorsSeen
	d, _ := h.dispatcherOn(t, refusing, dispatcherOpts{onError: seen.add})
	d.Wake()
	for deadline := time.Now().Add(30 * time.Second); refusing.refused.Load() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the command's result never reached the store")
		}
	}
	if err := d.Stop(context.Background()); err != nil {
		t.Fatalf("stop with a result unrecorded: %v; want a clean stop, the result kept for the next start", err)
	}
	if errs := seen.all(); len(errs) == 0 || !strings.Contains(errs[len(errs)-1], "kept in ") {
		t.Fatalf("the dispatcher reported %q, want the result said kept", errs)
	}
	if err := d.cfg.Owner.Release(); err != nil {
		t.Fatal(err)
	}

	self, err := AcquireOwner(filepath.Join(h.dir, "owners"))
	if err != nil {
		t.Fatal(err)
	}
	defer self.Release()
	rec, err := Recover(t.Context(), h.store, self)
	if err != nil || rec.Kept != 1 || rec.Lost != 0 || rec.Finished.Of(run.Succeeded) != 1 {
		t.Fatalf("recover: %+v, %v; want the kept result recorded, its Run succeeded, nothing lost", rec, err)
	}
	got := h.detail(t, runID)
	a := got.Attempts[0]
	if got.Run.State != run.Succeeded || a.ExitCode == nil || *a.ExitCode != 0 || *a.FinishedAtMs-*a.StartedAtMs >= time.Second.Milliseconds() {
		t.Fatalf("the Run is %s, its attempt %+v; want succeeded with exit 0 at its command's end", got.Run.State, a)
	}
	left, err := filepath.Glob(filepath.Join(h.dir, "owners", "*"+keptSuffix+"*"))
	if err != nil || len(left) != 0 {
		t.Fatalf("kept results left after recovery: %v, %v", left, err)
	}
}
