package scheduler

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/availability"
	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/cleanstop"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// downFor is how long the test keeps its PostgreSQL server stopped: ample
// for a round at the 250 ms cadence to find it gone, however loaded the
// machine.
const downFor = 10 * time.Second

// A round that fails because the database went away logs the scheduler's
// unavailability record alone, once: no scheduler.round_failed beside
// it, which one replica logged and another did not for the same drop. The
// server is a real one the test stops; the latch tripping on an
// unavailable error proves the round found it stopped.
func TestARoundThatFindsTheDatabaseStoppedLogsOnlyItsUnavailability(t *testing.T) {
	t.Parallel()
	pgtest.Server(t) // skips or fails, as every database test, without PostgreSQL
	srv, err := pgtest.StartServer(t.Context(), pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cleanstop.AtCleanup(t, "the PostgreSQL server", 30*time.Second, srv.Stop)
	env := clustertest.NewOn(t, srv)
	env.Apply(t, clustertest.Triggers("dropped", 5, "* * * * * *"))
	logs, latch := &logBuffer{}, availability.New()
	c, err := New(Config{Owner: "dropped", Cadence: 250 * time.Millisecond}, env.Runtime(t, "dropped", pgstore.DefaultLease),
		slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), latch)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	cleanstop.AtCleanup(t, "the coordinator", 10*time.Second, c.Stop)
	waitForRecords(t, logs, schedule.CodeRound, 1)
	postmaster := srv.PID()
	restarted := make(chan error, 1)
	go func() { restarted <- srv.Restart(context.Background(), downFor) }()
	select {
	case <-latch.Lost():
	case err := <-restarted:
		t.Fatalf("the server came back (%v) before the scheduler found it gone", err)
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-restarted; err != nil || srv.PID() == postmaster {
		t.Fatalf("restart: %v, postmaster %d before and %d after; want a new one: no stop happened", err, postmaster, srv.PID())
	}
	env.Super.Reset()
	lost := logs.records(t, CodeUnavailable)
	if len(lost) != 1 || lost[0]["error_code"] != "unavailable" {
		t.Fatalf("%s records %v; want one, of an unavailable database:\n%s", CodeUnavailable, lost, logs)
	}
	if failed := logs.records(t, schedule.CodeRoundFailed); len(failed) != 0 {
		t.Fatalf("%s records %v beside the unavailability; want none:\n%s", schedule.CodeRoundFailed, failed, logs)
	}
}
