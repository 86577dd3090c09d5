package scheduler

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/availability"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
)

// What a stop gives back is counted on the replica's /metrics: the rows
// released, or, when the release itself fails, the tickets left to wait
// out their lease — the series an operator alerts on, since nothing else
// says those occurrences were delayed.
func TestClaimsAStopGivesBackAreCountedAndSoAreThoseItCouldNot(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name             string
		releaseErr       error
		released, failed float64
	}{
		{"released", nil, 8, 0},
		{"failed", errors.New("release refused"), 0, 8},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := metrics.New(metrics.Config{Profile: metrics.ProfileCluster})
			srv := httptest.NewServer(m.Handler())
			defer srv.Close()
			// The page whose commit the stop cuts short and the page claimed
			// beside it: 2 × 4 tickets.
			st := &heldPages{fakeStore: &fakeStore{backlog: 10 * 4, observed: t0 + 1, releaseErr: c.releaseErr}, started: make(chan int32, 16),
				release: make(chan struct{}), untilStop: true, cutShort: true}
			co := started(t, Config{PageSize: 4, Cadence: time.Hour}, st, availability.New(), m)
			<-st.started
			waitTakes(t, st.fakeStore, 3)
			if err := co.Stop(context.Background()); err != nil {
				t.Fatal(err)
			}
			fams := metricstest.Scrape(t, srv.URL)
			released := fams.Value(t, "qinglong_scheduler_claims_given_back_total", "result", metrics.GiveBackReleased)
			failed := fams.Value(t, "qinglong_scheduler_claims_given_back_total", "result", metrics.GiveBackFailed)
			if released != c.released || failed != c.failed {
				t.Fatalf("claims given back: released %g, failed %g; want %g and %g (store released %d)", released, failed, c.released, c.failed, len(st.releasedIDs()))
			}
		})
	}
}
