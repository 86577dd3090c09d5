package scheduler

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/availability"
	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// onTimeCoordinator is a started coordinator on env with the given cadence,
// its local wall clock shifted by skew, counting its rounds.
func onTimeCoordinator(t *testing.T, env *clustertest.Env, owner string, cadence, skew time.Duration) (*Coordinator, *atomic.Int64) {
	t.Helper()
	return onTimeCoordinatorWith(t, env, Config{Owner: owner, Cadence: cadence}, skew)
}

// onTimeCoordinatorWith is onTimeCoordinator with the whole config.
func onTimeCoordinatorWith(t *testing.T, env *clustertest.Env, cfg Config, skew time.Duration) (*Coordinator, *atomic.Int64) {
	t.Helper()
	var rounds atomic.Int64
	log := slog.New(roundCounter{Handler: slog.NewTextHandler(io.Discard, nil), rounds: &rounds, t: t})
	c, err := New(cfg, env.Runtime(t, cfg.Owner, pgstore.DefaultLease), log, availability.New())
	if err != nil {
		t.Fatal(err)
	}
	c.now = func() time.Time { return time.Now().Add(skew) }
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return c, &rounds
}

// roundCounter counts the scheduler's round records, at every level, and
// hands every record to the test's log, so a failure shows the rounds and
// the errors that made the scheduler wait.
type roundCounter struct {
	slog.Handler
	rounds *atomic.Int64
	t      *testing.T
}

func (h roundCounter) Enabled(context.Context, slog.Level) bool { return true }

func (h roundCounter) Handle(_ context.Context, r slog.Record) error {
	line := r.Level.String() + " " + r.Message
	r.Attrs(func(a slog.Attr) bool {
		line += " " + a.String()
		return true
	})
	h.t.Log(r.Time.Format(time.StampMilli), line)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "code" && a.Value.String() == schedule.CodeRound {
			h.rounds.Add(1)
		}
		return true
	})
	return nil
}

// admissionLag is the lag, created − scheduled, both in database time, of
// every occurrence scheduled after afterMs, and how many there are.
func admissionLag(t *testing.T, env *clustertest.Env, afterMs int64) (maxLag, minLag, runs int64) {
	t.Helper()
	if err := env.Super.QueryRow(context.Background(), `SELECT coalesce(max(created_at_ms - scheduled_for_ms), 0),
		coalesce(min(created_at_ms - scheduled_for_ms), 0), count(*) FROM qinglong.runs WHERE scheduled_for_ms > $1`,
		afterMs).Scan(&maxLag, &minLag, &runs); err != nil {
		t.Fatal(err)
	}
	return maxLag, minLag, runs
}

// TestATriggerDueBetweenCadenceTicksIsAdmittedAtItsDueInstant: with a
// cadence of 5 s, triggers firing every second are admitted within a small
// fraction of the cadence of each due instant, by the database clock. After
// the round that initialised the rows, polling alone would admit nothing
// for 5 s; the test looks at the 3 s that follow it.
func TestATriggerDueBetweenCadenceTicksIsAdmittedAtItsDueInstant(t *testing.T) {
	t.Parallel()
	const cadence = 5 * time.Second
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("ontime", 5, "* * * * * *"))
	c, _ := onTimeCoordinator(t, env, "ontime", cadence, 0)
	deadline := time.Now().Add(cadence)
	for env.Int(t, `SELECT count(*) FROM qinglong.trigger_schedules WHERE next_fire_at_ms IS NULL`) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the first round did not initialise the rows")
		}
		time.Sleep(5 * time.Millisecond)
	}
	firstRound := env.Int(t, `SELECT `+pgstore.ClockMsSQL)
	time.Sleep(3 * time.Second)
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	maxLag, _, runs := admissionLag(t, env, firstRound)
	if runs < 5*2 {
		t.Fatalf("%d occurrences admitted in the 3 s after the first round, of 5 triggers firing every second with a %s cadence; the replica waited for the cadence", runs, cadence)
	}
	if maxLag >= cadence.Milliseconds()/5 {
		t.Fatalf("admission lag up to %d ms with a %s cadence: not woken at the due instant", maxLag, cadence)
	}
	if o := env.Count(t); o.Duplicates != 0 || o.Malformed != 0 {
		t.Fatalf("occurrences: %+v", o)
	}
	t.Logf("%d occurrences, lag ≤ %d ms", runs, maxLag)
}

// TestAWrongLocalClockMovesOnlyTheWakeUp: a replica whose wall clock is
// stepped an hour behind or ahead after each claim wakes late (at the
// cadence) or early (polling every few milliseconds), and that is all:
// every occurrence it admits is the same — exactly on its cron second,
// never before it by the database clock, once.
func TestAWrongLocalClockMovesOnlyTheWakeUp(t *testing.T) {
	t.Parallel()
	const cadence = time.Second
	const window = 3 * time.Second
	rounds := map[time.Duration]int64{}
	for _, skew := range []time.Duration{-time.Hour, 0, time.Hour} {
		env := clustertest.New(t)
		env.Apply(t, clustertest.Triggers("skew", 3, "* * * * * *"))
		c, n := onTimeCoordinator(t, env, "skew", cadence, skew)
		time.Sleep(window)
		if err := c.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		rounds[skew] = n.Load()
		maxLag, minLag, runs := admissionLag(t, env, 0)
		if runs == 0 || minLag < 0 || maxLag > 2*cadence.Milliseconds() {
			t.Fatalf("skew %s: %d runs, lag %d–%d ms: a wrong clock changed what was admitted or when it was due", skew, runs, minLag, maxLag)
		}
		offBoundary := env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE scheduled_for_ms % 1000 <> 0`)
		if o := env.Count(t); offBoundary != 0 || o.Duplicates != 0 || o.Malformed != 0 {
			t.Fatalf("skew %s: %d occurrences off their cron second, %+v", skew, offBoundary, o)
		}
		t.Logf("skew %s: %d rounds, %d runs, lag %d–%d ms", skew, rounds[skew], runs, minLag, maxLag)
	}
	// The fault really happened: the clock behind woke only on the cadence,
	// the clock ahead many times more often than on time.
	if behind := rounds[-time.Hour]; behind > int64(window/cadence)+2 {
		t.Fatalf("a clock an hour behind ran %d rounds in %s; it should wake only on the %s cadence", behind, window, cadence)
	}
	if ahead, onTime := rounds[time.Hour], rounds[0]; ahead < 5*onTime {
		t.Fatalf("a clock an hour ahead ran %d rounds, on time %d: the skew did not move the wake-up", ahead, onTime)
	}
}

// TestTheWakeUpFollowsTheDatabaseInstantBoundedByTheCadence pins the
// arithmetic: the wait is the local instant of the database due time plus
// the spread, moved exactly by a stepped clock, never below the spread,
// never above the cadence, and the cadence when nothing is known.
func TestTheWakeUpFollowsTheDatabaseInstantBoundedByTheCadence(t *testing.T) {
	t.Parallel()
	const cadence = 5 * time.Second
	spread := 7 * time.Millisecond
	local := time.UnixMilli(t0)
	// The database clock is 40 s ahead of the local clock; the next row is
	// due 300 ms after the local "now" by that offset.
	next := &schedule.NextDue{AtMs: t0 + 40_000 + 300, ClockOffsetMs: 40_000}
	cases := []struct {
		step time.Duration
		want time.Duration
	}{
		{0, 300*time.Millisecond + spread},
		{-200 * time.Millisecond, 500*time.Millisecond + spread},
		{200 * time.Millisecond, 100*time.Millisecond + spread},
		{time.Hour, spread},
		{-time.Hour, cadence},
	}
	for _, c := range cases {
		if got := next.Wait(local.Add(c.step), cadence, spread); got != c.want {
			t.Errorf("clock stepped %s: wait %s, want %s", c.step, got, c.want)
		}
	}
	if got := (*schedule.NextDue)(nil).Wait(local, cadence, spread); got != cadence {
		t.Errorf("nothing known: wait %s, want the cadence", got)
	}
	for range 1000 {
		if s := wakeSpread(); s < minWakeSpread || s >= maxWakeSpread {
			t.Fatalf("spread %s outside [%s, %s)", s, minWakeSpread, maxWakeSpread)
		}
	}
}

// TestAClaimAnsweredLateDoesNotMakeTheReplicaWakeLate: the database's
// clock reading lies between the local readings when a claim was sent and
// when its answer arrived. An answer that arrived late (a commit flush, a
// busy machine) says only that the offset is somewhere in a wide range; the
// replica keeps the tightest of its recent claims' lower bounds, so one late
// answer does not move its next wake-up later by the delay. The estimate
// never leaves the latest claim's range, so a local clock stepped ahead is
// followed at once.
func TestAClaimAnsweredLateDoesNotMakeTheReplicaWakeLate(t *testing.T) {
	t.Parallel()
	const cadence = 5 * time.Second
	st := &fakeStore{}
	b := setup(t, Config{PageSize: 8, Cadence: cadence}, st)
	local := time.UnixMilli(t0)
	b.coord.now = func() time.Time { return local }
	after := func(next schedule.NextDue) time.Duration {
		t.Helper()
		wait, ok := b.coord.wakeAfter(schedule.Summary{Taken: 1, Next: &next})
		if !ok {
			t.Fatal("no wake-up asked for a known instant")
		}
		return wait
	}
	// A quick claim: the offset is 0 within a millisecond; the next row is
	// due 500 ms from now.
	quick := after(schedule.NextDue{AtMs: t0 + 500, ClockOffsetMs: 0, ClockOffsetMaxMs: 1})
	// The next claim's answer came back 84 ms after the database read its
	// clock.
	late := after(schedule.NextDue{AtMs: t0 + 500, ClockOffsetMs: -84, ClockOffsetMaxMs: 1})
	if late-quick > maxWakeSpread {
		t.Fatalf("a claim answered 84 ms late moved the wake-up from %s to %s", quick, late)
	}
	// The local clock stepped an hour ahead: the range the latest claim
	// brackets wins over every earlier bound, and the row due 500 ms from
	// now is still 500 ms away.
	local = local.Add(time.Hour)
	stepped := after(schedule.NextDue{AtMs: t0 + 500, ClockOffsetMs: -time.Hour.Milliseconds() - 1, ClockOffsetMaxMs: -time.Hour.Milliseconds()})
	if stepped < 499*time.Millisecond || stepped-quick > maxWakeSpread {
		t.Fatalf("after the local clock stepped an hour ahead the wait is %s, want about %s", stepped, quick)
	}
}

// TestABurstClaimedAheadIsAdmittedOnceAndNeverBeforeItsInstant: with
// --claim-ahead, the rows of a second's burst are held by the replica
// before their instant (seen in the table: claimed, not yet due by the
// database clock), and each of them is still admitted once, on its cron
// second, never before it by the database clock, and well within the lease
// (a burst left claimed would wait for the lease to pass). Nothing here
// depends on how fast the machine is: a replica too slow to claim ahead of
// one instant does so at a later one.
func TestABurstClaimedAheadIsAdmittedOnceAndNeverBeforeItsInstant(t *testing.T) {
	t.Parallel()
	const triggers = 200
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("ahead", triggers, "* * * * * *"))
	c, _ := onTimeCoordinatorWith(t, env, Config{Owner: "ahead", ClaimAhead: 400 * time.Millisecond}, 0)
	// Rows held before they are due: only a claim ahead takes those.
	instant, held := awaitClaimedAhead(t, env, "ahead", 0)
	// Every row held ahead of the instant gets its Run for it, sooner than
	// half a lease: a claim left to expire would take a whole one.
	admitted := func() int64 {
		return env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE scheduled_for_ms = $1`, instant)
	}
	until := time.Now().Add(pgstore.DefaultLease / 2)
	for admitted() < held {
		if time.Now().After(until) {
			t.Fatalf("%d of the %d rows claimed ahead of %d were admitted within half a lease", admitted(), held, instant)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, minLag, runs := admissionLag(t, env, 0)
	if minLag < 0 {
		t.Fatalf("a Run was created %d ms before its instant", -minLag)
	}
	offBoundary := env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE scheduled_for_ms % 1000 <> 0`)
	if o := env.Count(t); offBoundary != 0 || o.Duplicates != 0 || o.Malformed != 0 {
		t.Fatalf("%d occurrences off their cron second, %+v", offBoundary, o)
	}
	t.Logf("%d rows held ahead of %d, each admitted at or after it; %d runs, none early", held, instant, runs)
}

// TestAWrongLocalClockMovesOnlyTheWakeUpOfAClaimAhead: claiming ahead, a
// replica whose wall clock is stepped after each claim claims and commits
// at the wrong local moments, and that is all: every occurrence is admitted
// once, on its cron second, never before it by the database clock. An hour
// behind it claims at the instant on the cadence, an hour ahead it polls;
// 300 ms ahead it claims ahead and commits 300 ms before the instant,
// where the store waits for the database clock.
func TestAWrongLocalClockMovesOnlyTheWakeUpOfAClaimAhead(t *testing.T) {
	t.Parallel()
	for _, skew := range []time.Duration{-time.Hour, 300 * time.Millisecond, time.Hour} {
		env := clustertest.New(t)
		env.Apply(t, clustertest.Triggers("skew", 3, "* * * * * *"))
		c, _ := onTimeCoordinatorWith(t, env, Config{Owner: "skew", ClaimAhead: 400 * time.Millisecond}, skew)
		time.Sleep(3 * time.Second)
		if err := c.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		maxLag, minLag, runs := admissionLag(t, env, 0)
		if runs == 0 || minLag < 0 || maxLag > 2*time.Second.Milliseconds() {
			t.Fatalf("skew %s: %d runs, lag %d–%d ms: a wrong clock changed what was admitted or when it was due", skew, runs, minLag, maxLag)
		}
		offBoundary := env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE scheduled_for_ms % 1000 <> 0`)
		if o := env.Count(t); offBoundary != 0 || o.Duplicates != 0 || o.Malformed != 0 {
			t.Fatalf("skew %s: %d occurrences off their cron second, %+v", skew, offBoundary, o)
		}
		// 300 ms ahead, every commit reaches the database before the
		// instant: had the store not waited for its clock, each row would
		// have failed closed and stayed claimed for a lease, admitting
		// nothing after the first second.
		if skew == 300*time.Millisecond && runs < 2*3 {
			t.Fatalf("skew %s: %d runs of 3 triggers in 3 s: the early commits were not admitted at their instant", skew, runs)
		}
		t.Logf("skew %s: %d runs, lag %d–%d ms", skew, runs, minLag, maxLag)
	}
}

// awaitClaimedAhead waits, at most a lease, until owner holds rows whose
// due instant is more than marginMs ahead of the database clock, and
// returns the earliest such instant and how many rows owner holds for it.
func awaitClaimedAhead(t *testing.T, env *clustertest.Env, owner string, marginMs int64) (instant, held int64) {
	t.Helper()
	deadline := time.Now().Add(pgstore.DefaultLease)
	for held == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s claimed no row more than %d ms before its due time within %s", owner, marginMs, pgstore.DefaultLease)
		}
		if err := env.Super.QueryRow(context.Background(), `WITH ahead AS (SELECT next_fire_at_ms + due_offset_ms AS due FROM qinglong.trigger_schedules
			        WHERE claim_owner = $1 AND next_fire_at_ms + due_offset_ms > `+pgstore.ClockMsSQL+` + $2)
			SELECT coalesce(min(due), 0), count(*) FILTER (WHERE due = (SELECT min(due) FROM ahead)) FROM ahead`, owner, marginMs).Scan(&instant, &held); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return instant, held
}
