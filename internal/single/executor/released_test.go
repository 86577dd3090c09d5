package executor

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// heldFinish holds AttemptFinish, whatever its context says, until the
// test lets it go, then refuses it as a full disk does: a result whose
// write outlasts the stop's last wait, as one does on a machine too busy
// to end the command's worker within it.
type heldFinish struct {
	Store
	entered chan struct{}
	release chan struct{}
}

func (h *heldFinish) AttemptFinish(context.Context, run.Attempt) (run.State, error) {
	h.entered <- struct{}{}
	<-h.release
	return "", qlerror.New(qlerror.Unavailable, "injected: the disk is full")
}

// A result still being recorded when the stop gave up on it and released
// the owner is not kept in the owner directory afterwards: nothing of a
// stopped server appears in a data directory it no longer holds (another
// server may be using it, or a test removing it). The attempt is found
// lost at the next start, and the operator is told so. Before, the file
// appeared whenever the worker ended, after the stop had returned.
func TestNoResultIsKeptBesideAnOwnerItsStopReleased(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.admit(t, shell("exit 0", time.Minute))
	held := &heldFinish{Store: h.store, entered: make(chan struct{}, 1), release: make(chan struct{})}
	var seen errorsSeen
	d, _ := h.dispatcherOn(t, held, dispatcherOpts{onError: seen.add})
	d.Wake()
	select {
	case <-held.entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the command's result never reached the store")
	}

	// The stop's context has ended (a test's cleanup passing t.Context()
	// does this): the stop waits keepWait for the result, then returns.
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if err := d.Stop(ended); err == nil {
		t.Fatal("the stop returned clean with a result still being recorded; want it to say so")
	}
	if err := d.cfg.Owner.Release(); err != nil {
		t.Fatal(err)
	}
	close(held.release)

	const recordFailed = "record attempt"
	for deadline := time.Now().Add(30 * time.Second); !slices.ContainsFunc(seen.all(), func(e string) bool { return strings.HasPrefix(e, recordFailed) }); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the worker never reported its result unrecorded; it reported %q", seen.all())
		}
	}
	entries, err := os.ReadDir(filepath.Join(h.dir, "owners"))
	if err != nil || len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("the owner directory after its owner was released holds %v (%v); want nothing", names, err)
	}
	errs := seen.all()
	if i := slices.IndexFunc(errs, func(e string) bool { return strings.HasPrefix(e, recordFailed) }); !strings.Contains(errs[i], "the next start will find the attempt lost") {
		t.Fatalf("the worker reported %q; want it to say the next start finds the attempt lost", errs[i])
	}
}
