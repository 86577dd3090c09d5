package workeringress

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"
)

// The wake a (re)started listener sends comes once it listens: a notice
// sent by whoever that wake sets going (a pull that asks the database
// again, and a Run queued meanwhile) is heard, on the first start and
// after the listener's connection was lost. Woken before it listened, the
// waiters could look, find nothing, and sleep through a notice sent before
// the LISTEN to their wait bound.
func TestANoticeSentAtTheListenersRestartWakeIsHeard(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	var relistens, heard atomic.Int32
	wake := func(n Notice) {
		if n.Relisten {
			relistens.Add(1)
			// Sent as the woken waiters would act: right away.
			if err := f.rt.NotifyRunsQueued(context.Background()); err != nil {
				t.Error(err)
			}
			return
		}
		heard.Add(1)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Listen(ctx, f.listenRunsQueued, wake, slog.New(slog.DiscardHandler))
	}()
	t.Cleanup(func() { cancel(); <-done })
	eventually(t, 10*time.Second, "the notice sent at the first start's wake to be heard", func() bool { return heard.Load() >= 1 })
	first := listeners(t, f, 1)[0]
	f.env.Exec(t, `SELECT pg_terminate_backend($1)`, first)
	eventually(t, 15*time.Second, "the notice sent at the restart's wake to be heard", func() bool { return relistens.Load() >= 2 && heard.Load() >= 2 })
}
