package cleanstop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// recorder is a test whose cleanups and errors are kept, not acted on.
type recorder struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (r *recorder) Helper()          {}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(f string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(f, args...))
}

// A stop runs at the test's end with a context of its own, live and
// bounded by the limit given; a stop that returns an error fails the
// test, naming what did not stop, and a clean one does not.
func TestAnUncleanStopFailsTheTestAndEveryStopGetsAFreshBoundedContext(t *testing.T) {
	for _, unclean := range []bool{false, true} {
		r := &recorder{TB: t}
		ran := false
		AtCleanup(r, "the thing", time.Minute, func(ctx context.Context) error {
			ran = true
			deadline, ok := ctx.Deadline()
			if ctx.Err() != nil || !ok || time.Until(deadline) > time.Minute {
				t.Errorf("the stop's context: err %v, deadline %v (set %v); want live and ending within a minute", ctx.Err(), deadline, ok)
			}
			if unclean {
				return errors.New("stop timed out")
			}
			return nil
		})
		if ran || len(r.cleanups) != 1 {
			t.Fatalf("the stop ran before the test's end (%v), or %d cleanups registered, want 1", ran, len(r.cleanups))
		}
		r.cleanups[0]()
		switch {
		case !ran:
			t.Error("the cleanup did not stop")
		case unclean && (len(r.errors) != 1 || !strings.Contains(r.errors[0], "the thing did not stop cleanly: stop timed out")):
			t.Errorf("an unclean stop reported %q, want one error naming the thing and the stop's error", r.errors)
		case !unclean && len(r.errors) != 0:
			t.Errorf("a clean stop reported %q", r.errors)
		}
	}
}
