package storetest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// EnvRetentionBacklog sizes BenchAdmissionUnderRetention's backlog of old
// finished Runs (default DefaultRetentionBacklog).
const EnvRetentionBacklog = "QL_BENCH_RETENTION_BACKLOG"

// DefaultRetentionBacklog is the backlog a plain `go test -bench` seeds:
// small enough to seed in seconds on a shared machine. Set
// QL_BENCH_RETENTION_BACKLOG=1000000 for the full backlog.
const DefaultRetentionBacklog = 100_000

// benchPage is how many triggers one measured round admits, as one page.
const benchPage = 64

// BenchAdmissionUnderRetention measures the admission rate (a page of 64
// due triggers taken, decided and committed as one page, as a scheduler
// round does) while retention deletes a backlog of old finished Runs, and
// without retention, in the same run: rounds alternate between the two so
// both see the same machine. Retention runs with o, the pacing the
// adapter's serving process uses. It reports both rates and their ratio
// (with/without; 1 means retention costs admission nothing).
func BenchAdmissionUnderRetention(b *testing.B, f Fixture, o retention.Options) {
	ctx := context.Background()
	o.Budget = time.Hour
	backlog := DefaultRetentionBacklog
	if v := os.Getenv(EnvRetentionBacklog); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("%s=%q is not a positive number", EnvRetentionBacklog, v)
		}
		backlog = n
	}
	var triggers []string
	for i := range benchPage {
		d := newDefs(b, f, fmt.Sprintf("bench%02d", i), quietCron(b, f))
		triggers = append(triggers, d.Trigger.TriggerID)
	}
	initialise(b, f)
	template := admitNow(b, f, triggers[0], 1_000)
	start := time.Now()
	for seeded := 0; seeded < backlog; seeded += 10_000 {
		if _, err := f.SeedFinished(ctx, template, min(10_000, backlog-seeded), now(b, f)-(40*retention.Day).Milliseconds(), 64); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded %d finished runs in %s", backlog, time.Since(start).Round(time.Millisecond))

	// Rounds without retention before and after the rounds with it, so
	// both see the same machine; retention deletes only during the
	// measured rounds with it, then is cancelled.
	var with, without time.Duration
	var admittedWith, admittedWithout int
	for range 10 {
		without += admitRound(b, f, triggers)
		admittedWithout += benchPage
	}
	passCtx, cancel := context.WithCancel(ctx)
	deleting := make(chan retention.Report)
	began := time.Now()
	go func() {
		rep, err := retention.Pass(passCtx, f.Retention, retention.Policy{RunsAge: 30 * retention.Day}, o)
		if err != nil && passCtx.Err() == nil {
			b.Error(err)
		}
		deleting <- rep
	}()
	for b.Loop() {
		with += admitRound(b, f, triggers)
		admittedWith += benchPage
	}
	cancel()
	rep := <-deleting
	deletingFor := time.Since(began)
	for admittedWithout < 2*admittedWith && admittedWithout < admittedWith+640 {
		without += admitRound(b, f, triggers)
		admittedWithout += benchPage
	}
	if rep.Total.Runs == 0 || rep.Total.Runs == int64(backlog) {
		b.Fatalf("retention deleted %d of %d runs while admissions were measured: the ratio would not compare admission during deletion", rep.Total.Runs, backlog)
	}
	rateWith := float64(admittedWith) / with.Seconds()
	rateWithout := float64(admittedWithout) / without.Seconds()
	b.ReportMetric(rateWith, "admissions/s-with")
	b.ReportMetric(rateWithout, "admissions/s-without")
	b.ReportMetric(rateWith/rateWithout, "with/without")
	b.ReportMetric(float64(rep.Total.Runs)/deletingFor.Seconds(), "deleted-runs/s")
}

// admitRound makes every trigger due, then times one page: take, decide,
// commit.
func admitRound(b *testing.B, f Fixture, triggers []string) time.Duration {
	ctx := context.Background()
	for _, id := range triggers {
		if err := f.MakeDue(ctx, id, 1_000); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	tks, err := f.Schedule.ScheduleTake(ctx, schedule.TakeParams{Limit: benchPage})
	if err != nil {
		b.Fatal(err)
	}
	ps := make([]schedule.CommitParams, len(tks))
	for i, tk := range tks {
		ps[i] = schedule.CommitParams{Ticket: tk, Decision: decide(b, tk), GraceMs: graceMs, RunID: ids.New(), AttemptID: ids.New()}
	}
	rs, err := f.Schedule.ScheduleCommitPage(ctx, ps)
	if err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	for _, r := range rs {
		if r.Outcome != schedule.Admitted {
			b.Fatalf("a benchmark admission: %s (%s)", r.Outcome, r.Reason)
		}
	}
	if len(rs) != benchPage {
		b.Fatalf("a round admitted %d, want %d", len(rs), benchPage)
	}
	return took
}
