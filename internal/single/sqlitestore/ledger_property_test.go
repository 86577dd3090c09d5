package sqlitestore

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
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
		Overlap: rapid.SampledFrom([]trigger.OverlapPolicy{trigger.OverlapAllow, trigger.OverlapSkip, trigger.OverlapQueueOne,
			trigger.OverlapCancelPrevious}).Draw(t, label+"overlap"),
	}
}

// For random cron expressions, misfire and overlap policies and graces,
// and random sequences of clock jumps, scheduling rounds, pauses and
// resumes, republishes, disables and enables and finishing Runs, every
// nominal occurrence of every revision of a trigger — from the revision's
// creation up to the next revision's, or for the current revision up to
// its cursor — is exactly one of: the scheduled time of one Run of that
// revision, or inside one occurrence ledger entry naming that revision
// (whose count is exact); never both, never neither; and nothing outside
// those spans is either.
func TestEveryNominalOccurrenceIsOneRunOrInOneLedgerEntry(t *testing.T) {
	t.Parallel()
	fewerDefaultChecks(t)
	rapid.Check(t, func(rt *rapid.T) {
		e := newEnv(t)
		n := rapid.IntRange(1, 3).Draw(rt, "triggers")
		type subject struct {
			d      defs
			paused bool
			revs   []trigger.Revision
		}
		subjects := make([]*subject, n)
		for i := range subjects {
			d := e.defs(t, fmt.Sprintf("p%d", i), propertyCron(rt, fmt.Sprintf("t%d.", i)))
			subjects[i] = &subject{d: d, revs: []trigger.Revision{d.Trigger}}
		}
		cfg := schedule.RoundConfig{PageSize: rapid.IntRange(1, 4).Draw(rt, "page"), Parallel: 1,
			GraceMs: rapid.Int64Range(0, 90_000).Draw(rt, "grace"), NewIDs: ids.Fill}
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
		current := func(s *subject) trigger.Revision { return s.revs[len(s.revs)-1] }
		setEnabled := func(s *subject, on bool) {
			res, err := e.service().TriggerSetEnabled(t.Context(), catalog.EnableRequest{ProjectID: s.d.Project.ID, Name: "tick", Enabled: on, Actor: "property"})
			if err != nil || res.Changed == (current(s).Spec.Enabled == on) {
				rt.Fatalf("enabled=%v of a trigger enabled=%v: %+v %v", on, current(s).Spec.Enabled, res, err)
			}
			if res.Changed {
				rev, err := e.store.TriggerByName(t.Context(), s.d.Project.ID, "tick")
				if err != nil {
					rt.Fatal(err)
				}
				s.revs = append(s.revs, rev)
			}
		}
		steps := rapid.IntRange(1, 25).Draw(rt, "steps")
		for range steps {
			switch rapid.IntRange(0, 6).Draw(rt, "op") {
			case 0:
				e.clock.Advance(time.Duration(rapid.Int64Range(0, 8*60_000).Draw(rt, "advanceMs")) * time.Millisecond)
			case 1:
				round()
			case 2:
				s := subjects[rapid.IntRange(0, n-1).Draw(rt, "which")]
				setPaused(s, !s.paused)
			case 3:
				s := subjects[rapid.IntRange(0, n-1).Draw(rt, "which")]
				cur := current(s)
				s.revs = append(s.revs, e.trigger(t, s.d.Project, s.d.Task, "tick", cur.TriggerID, cur.Revision, propertyCron(rt, "republish."), cur.Spec.Enabled))
			case 4:
				s := subjects[rapid.IntRange(0, n-1).Draw(rt, "which")]
				setEnabled(s, !current(s).Spec.Enabled)
			case 5:
				finishRuns(rt, e)
			default:
				e.clock.Advance(time.Duration(rapid.Int64Range(0, 3_000).Draw(rt, "jitterMs")) * time.Millisecond)
				round()
			}
		}
		for _, s := range subjects {
			if s.paused {
				setPaused(s, false)
			}
			if !current(s).Spec.Enabled {
				setEnabled(s, true)
			}
		}
		round()
		for _, s := range subjects {
			checkCoverage(rt, e, s.revs)
		}
	})
}

// finishRuns ends every unfinished Run as succeeded, so the overlap
// policies see both a busy and an idle trigger.
func finishRuns(rt *rapid.T, e *env) {
	rows, err := e.raw.Query(`SELECT id FROM runs WHERE state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')`)
	if err != nil {
		rt.Fatal(err)
	}
	var open []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rt.Fatal(err)
		}
		open = append(open, id)
	}
	rows.Close()
	for _, id := range open {
		if _, err := e.finish(context.Background(), id, run.AttemptSucceeded); err != nil {
			rt.Fatalf("finish run %s: %v", id, err)
		}
	}
}

// checkCoverage checks the property for one trigger, given its revisions
// oldest first.
func checkCoverage(rt *rapid.T, e *env, revs []trigger.Revision) {
	last := revs[len(revs)-1]
	var cursor *int64
	if err := e.raw.QueryRow(`SELECT next_fire_at_ms FROM trigger_schedules WHERE trigger_id = ?`, last.TriggerID).Scan(&cursor); err != nil {
		rt.Fatal(err)
	}
	scheds := map[int64]*cron.Schedule{}
	for _, r := range revs {
		sched, err := cron.Parse(r.Spec.Cron.Expression, r.Spec.Cron.Timezone)
		if err != nil {
			rt.Fatal(err)
		}
		scheds[r.Revision] = sched
	}
	type occurrence struct{ revision, at int64 }
	covered := map[occurrence]string{}
	mark := func(o occurrence, by string) {
		if prev, ok := covered[o]; ok {
			rt.Fatalf("occurrence %d of revision %d is both %s and %s", o.at, o.revision, prev, by)
		}
		covered[o] = by
	}
	rows, err := e.raw.Query(`SELECT trigger_revision, scheduled_for_ms FROM runs WHERE trigger_id = ?`, last.TriggerID)
	if err != nil {
		rt.Fatal(err)
	}
	for rows.Next() {
		var o occurrence
		if err := rows.Scan(&o.revision, &o.at); err != nil {
			rt.Fatal(err)
		}
		mark(o, "a run")
	}
	rows.Close()
	rows, err = e.raw.Query(`SELECT trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count, at_least FROM occurrence_ledger WHERE trigger_id = ?`, last.TriggerID)
	if err != nil {
		rt.Fatal(err)
	}
	for rows.Next() {
		var rev int64
		var reason string
		var first, lastMs, count int64
		var atLeast bool
		if err := rows.Scan(&rev, &reason, &first, &lastMs, &count, &atLeast); err != nil {
			rt.Fatal(err)
		}
		sched := scheds[rev]
		if sched == nil {
			rt.Fatalf("a %s entry names revision %d, which the trigger never had", reason, rev)
		}
		var seen int64
		for at, ok := sched.Next(first - 1); ok && at <= lastMs; at, ok = sched.Next(at) {
			mark(occurrence{rev, at}, "in a "+reason+" entry")
			seen++
		}
		if seen != count || atLeast {
			rt.Fatalf("revision %d: a %s entry [%d, %d] counts %d (at least %v); the span holds %d", rev, reason, first, lastMs, count, atLeast, seen)
		}
	}
	rows.Close()
	var nominal int
	for i, r := range revs {
		// A revision owns its occurrences from its creation up to the next
		// revision's; the current one up to its cursor (none before its
		// first decision).
		end := r.CreatedAtMs
		switch {
		case i+1 < len(revs):
			end = revs[i+1].CreatedAtMs
		case cursor != nil:
			end = *cursor
		}
		for at, ok := scheds[r.Revision].Next(r.CreatedAtMs - 1); ok && at < end; at, ok = scheds[r.Revision].Next(at) {
			if _, ok := covered[occurrence{r.Revision, at}]; !ok {
				rt.Fatalf("%s (%s, %s, enabled %v) revision %d: occurrence %s before %s has neither a run nor a ledger entry", r.Spec.Cron.Expression, r.Spec.Cron.Timezone,
					r.Spec.Cron.MisfirePolicy, r.Spec.Enabled, r.Revision, time.UnixMilli(at).UTC(), time.UnixMilli(end).UTC())
			}
			nominal++
		}
	}
	if nominal != len(covered) {
		rt.Fatalf("%d runs and ledger occurrences, but %d nominal occurrences", len(covered), nominal)
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
