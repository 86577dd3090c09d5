package sqlitestore

import (
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// propertyCron draws a cron expression from shapes that fire densely
// enough for a simulated span of at most a couple of hours: every few
// seconds, every few minutes at some second, hourly, in UTC or in a zone
// with daylight saving.
func propertyCron(t *rapid.T, label string) trigger.Cron {
	var expr string
	switch rapid.IntRange(0, 3).Draw(t, label+"shape") {
	case 0:
		expr = fmt.Sprintf("*/%d * * * * *", rapid.IntRange(1, 30).Draw(t, label+"seconds"))
	case 1:
		expr = fmt.Sprintf("%d */%d * * * *", rapid.IntRange(0, 59).Draw(t, label+"second"), rapid.IntRange(1, 7).Draw(t, label+"minutes"))
	case 2:
		expr = fmt.Sprintf("%d * * * *", rapid.IntRange(0, 59).Draw(t, label+"minute"))
	default:
		expr = fmt.Sprintf("%d,%d * * * * *", rapid.IntRange(0, 29).Draw(t, label+"s1"), rapid.IntRange(30, 59).Draw(t, label+"s2"))
	}
	return trigger.Cron{
		Expression:    expr,
		Timezone:      rapid.SampledFrom([]string{"UTC", "Europe/Berlin", "America/New_York"}).Draw(t, label+"zone"),
		MisfirePolicy: rapid.SampledFrom([]trigger.MisfirePolicy{trigger.Skip, trigger.FireOnce}).Draw(t, label+"policy"),
	}
}

// For random cron expressions, misfire policies and graces, and random
// sequences of clock jumps, scheduling rounds, pauses and resumes, every
// nominal occurrence of a trigger before its final cursor is exactly one
// of: the scheduled time of one Run, or inside one occurrence ledger entry
// (whose count is exact) — never both, never neither — and nothing at or
// after the cursor is either.
func TestEveryNominalOccurrenceIsOneRunOrInOneLedgerEntry(t *testing.T) {
	t.Parallel()
	fewerDefaultChecks(t)
	rapid.Check(t, func(rt *rapid.T) {
		e := newEnv(t)
		n := rapid.IntRange(1, 3).Draw(rt, "triggers")
		type subject struct {
			d       defs
			paused  bool
			created int64
		}
		subjects := make([]*subject, n)
		for i := range subjects {
			subjects[i] = &subject{d: e.defs(t, fmt.Sprintf("p%d", i), propertyCron(rt, fmt.Sprintf("t%d.", i)))}
			subjects[i].created = subjects[i].d.Trigger.CreatedAtMs
		}
		cfg := schedule.RoundConfig{PageSize: rapid.IntRange(1, 4).Draw(rt, "page"), Parallel: 1,
			GraceMs: rapid.Int64Range(0, 90_000).Draw(rt, "grace"), NewID: ids.New}
		round := func() {
			for {
				sum, err := schedule.Round(t.Context(), e.store, cfg)
				if err != nil || len(sum.Errors) > 0 || sum.Counts[schedule.Raced] > 0 {
					rt.Fatalf("round: %v %v %v", sum.Counts, sum.Errors, err)
				}
				if !sum.Full(cfg.PageSize) {
					return
				}
			}
		}
		setPaused := func(s *subject, on bool) {
			res, err := e.store.TriggerPause(t.Context(), schedule.PauseRequest{TriggerID: s.d.Trigger.TriggerID, Pause: on, Actor: "property"})
			if err != nil || res.Changed == (s.paused == on) {
				rt.Fatalf("pause=%v of a trigger paused=%v: %+v %v", on, s.paused, res, err)
			}
			s.paused = on
		}
		steps := rapid.IntRange(1, 25).Draw(rt, "steps")
		for range steps {
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 0:
				e.clock.Advance(time.Duration(rapid.Int64Range(0, 8*60_000).Draw(rt, "advanceMs")) * time.Millisecond)
			case 1:
				round()
			case 2:
				s := subjects[rapid.IntRange(0, n-1).Draw(rt, "which")]
				setPaused(s, !s.paused)
			default:
				e.clock.Advance(time.Duration(rapid.Int64Range(0, 3_000).Draw(rt, "jitterMs")) * time.Millisecond)
				round()
			}
		}
		for _, s := range subjects {
			if s.paused {
				setPaused(s, false)
			}
		}
		round()
		for _, s := range subjects {
			checkCoverage(rt, e, s.d.Trigger, s.created)
		}
	})
}

// checkCoverage checks the property for one trigger.
func checkCoverage(rt *rapid.T, e *env, tr trigger.Revision, createdMs int64) {
	var cursor *int64
	if err := e.raw.QueryRow(`SELECT next_fire_at_ms FROM trigger_schedules WHERE trigger_id = ?`, tr.TriggerID).Scan(&cursor); err != nil {
		rt.Fatal(err)
	}
	sched, err := cron.Parse(tr.Spec.Cron.Expression, tr.Spec.Cron.Timezone)
	if err != nil {
		rt.Fatal(err)
	}
	covered := map[int64]string{}
	mark := func(at int64, by string) {
		if prev, ok := covered[at]; ok {
			rt.Fatalf("%s: occurrence %d is both %s and %s", tr.Spec.Cron.Expression, at, prev, by)
		}
		covered[at] = by
	}
	rows, err := e.raw.Query(`SELECT scheduled_for_ms FROM runs WHERE trigger_id = ?`, tr.TriggerID)
	if err != nil {
		rt.Fatal(err)
	}
	for rows.Next() {
		var at int64
		if err := rows.Scan(&at); err != nil {
			rt.Fatal(err)
		}
		mark(at, "a run")
	}
	rows.Close()
	rows, err = e.raw.Query(`SELECT reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count, at_least FROM occurrence_ledger WHERE trigger_id = ?`, tr.TriggerID)
	if err != nil {
		rt.Fatal(err)
	}
	for rows.Next() {
		var reason string
		var first, last, count int64
		var atLeast bool
		if err := rows.Scan(&reason, &first, &last, &count, &atLeast); err != nil {
			rt.Fatal(err)
		}
		var seen int64
		for at, ok := sched.Next(first - 1); ok && at <= last; at, ok = sched.Next(at) {
			mark(at, "in a "+reason+" entry")
			seen++
		}
		if seen != count || atLeast {
			rt.Fatalf("%s: a %s entry [%d, %d] counts %d (at least %v); the span holds %d", tr.Spec.Cron.Expression, reason, first, last, count, atLeast, seen)
		}
	}
	rows.Close()
	if cursor == nil {
		if len(covered) != 0 {
			rt.Fatalf("%s: %d occurrences covered before the first decision", tr.Spec.Cron.Expression, len(covered))
		}
		return
	}
	var nominal int
	for at, ok := sched.Next(createdMs - 1); ok && at < *cursor; at, ok = sched.Next(at) {
		if _, ok := covered[at]; !ok {
			rt.Fatalf("%s (%s, %s): occurrence %s before the cursor %s has neither a run nor a ledger entry", tr.Spec.Cron.Expression, tr.Spec.Cron.Timezone,
				tr.Spec.Cron.MisfirePolicy, time.UnixMilli(at).UTC(), time.UnixMilli(*cursor).UTC())
		}
		nominal++
	}
	if nominal != len(covered) {
		rt.Fatalf("%s: %d runs and ledger occurrences, but %d nominal occurrences before the cursor", tr.Spec.Cron.Expression, len(covered), nominal)
	}
}

// defaultChecks is how many random cases the property test tries when
// neither -rapid.checks nor RAPID_CHECKS says otherwise: each case
// migrates a database of its own and drives up to 25 rounds, so rapid's
// default of 100 took three and a half minutes under the race detector —
// an eighth of the whole suite's budget. Every run draws new cases; a deep
// run is RAPID_CHECKS=2000 go test -run TestEveryNominalOccurrence.
const defaultChecks = 30

func fewerDefaultChecks(t *testing.T) {
	t.Helper()
	if os.Getenv("RAPID_CHECKS") != "" {
		return
	}
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "rapid.checks" })
	if explicit {
		return
	}
	if err := flag.Set("rapid.checks", fmt.Sprint(defaultChecks)); err != nil {
		t.Fatal(err)
	}
}
