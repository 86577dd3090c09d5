package cli

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
)

// LAST RUN shows a rerun at its admission, marked a rerun, not at the
// older occurrence it repeats; any other Run at the occurrence it is for.
func TestLastRunShowsARerunAtItsAdmissionMarkedARerun(t *testing.T) {
	t.Parallel()
	const occurrence, admitted = 1_790_000_000_000, 1_790_000_600_000
	for _, c := range []struct {
		rerunOf, want string
	}{
		{"", "succeeded 2026-09-21T14:13:20.000Z"},
		{"01a24e88-c4a7-7142-b083-54da4dfe18e2", "succeeded 2026-09-21T14:23:20.000Z (rerun)"},
	} {
		tr := view.Trigger{LastRun: &view.LastRun{State: run.Succeeded, ScheduledForMs: occurrence, CreatedAtMs: admitted, RerunOf: c.rerunOf}}
		if got := lastRun(tr, false); got != c.want {
			t.Errorf("rerun of %q: LAST RUN %q, want %q", c.rerunOf, got, c.want)
		}
	}
}

// LAST RUN shows a backfill's Run at its admission, marked a backfill,
// not at the older occurrence it fills, as it does a rerun.
func TestLastRunShowsABackfillsRunAtItsAdmissionMarkedABackfill(t *testing.T) {
	t.Parallel()
	const occurrence, admitted = 1_790_000_000_000, 1_790_000_600_000
	tr := view.Trigger{LastRun: &view.LastRun{State: run.Failed, ScheduledForMs: occurrence, CreatedAtMs: admitted, Origin: run.OriginBackfill}}
	if got, want := lastRun(tr, false), "failed 2026-09-21T14:23:20.000Z (backfill)"; got != want {
		t.Errorf("a backfill's Run: LAST RUN %q, want %q", got, want)
	}
}
