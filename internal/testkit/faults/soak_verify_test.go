package faults

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/cron"
)

// offGrid counts Runs whose scheduled time is not an occurrence of their
// trigger revision's cron expression, checked with the cron package itself:
// s is on the grid when the first occurrence after s−1 ms is s.
func offGrid(t testing.TB, c *pgx.Conn) (checked, off int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), factTimeout)
	defer cancel()
	rows, err := c.Query(ctx, `SELECT tr.cron_expression, tr.cron_timezone, r.scheduled_for_ms
		FROM qinglong.runs r
		JOIN qinglong.trigger_revisions tr ON tr.trigger_id = r.trigger_id AND tr.revision = r.trigger_revision`)
	if err != nil {
		t.Fatalf("reading scheduled times: %v", err)
	}
	schedules := map[[2]string]*cron.Schedule{}
	var expr, tz string
	var at int64
	_, err = pgx.ForEachRow(rows, []any{&expr, &tz, &at}, func() error {
		key := [2]string{expr, tz}
		s, ok := schedules[key]
		if !ok {
			var err error
			if s, err = cron.Parse(expr, tz); err != nil {
				return err
			}
			schedules[key] = s
		}
		checked++
		if next, ok := s.Next(at - 1); !ok || next != at {
			off++
		}
		return nil
	})
	if err != nil {
		t.Fatalf("checking the cron grid: %v", err)
	}
	return checked, off
}

// gap is a time a trigger went without an admission.
type gap struct {
	TriggerID    string
	FromMs, ToMs int64
}

func (g gap) Ms() int64 { return g.ToMs - g.FromMs }

// admissionTimes maps each trigger to its Runs' created_at_ms (the
// admission transactions' database time), ascending.
func admissionTimes(t testing.TB, c *pgx.Conn) map[string][]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), factTimeout)
	defer cancel()
	rows, err := c.Query(ctx, `SELECT trigger_id::text, created_at_ms FROM qinglong.runs ORDER BY trigger_id, created_at_ms`)
	if err != nil {
		t.Fatalf("reading admissions: %v", err)
	}
	out := map[string][]int64{}
	var id string
	var at int64
	if _, err := pgx.ForEachRow(rows, []any{&id, &at}, func() error {
		out[id] = append(out[id], at)
		return nil
	}); err != nil {
		t.Fatalf("reading admissions: %v", err)
	}
	return out
}

// longestGap is the longest time any trigger went without an admission
// during [fromMs, toMs]: for each trigger, from its last admission at or
// before fromMs, between consecutive admissions, and from the last one to
// toMs. A trigger with no admission at or before fromMs is returned in
// unstarted, since its gap has no beginning.
func longestGap(times map[string][]int64, fromMs, toMs int64) (worst gap, unstarted []string) {
	for id, ats := range times {
		prev := int64(-1)
		for _, at := range ats {
			if at > toMs {
				break
			}
			if at > fromMs && prev >= 0 && at-prev > worst.Ms() {
				worst = gap{TriggerID: id, FromMs: prev, ToMs: at}
			}
			prev = at
		}
		if prev < 0 || ats[0] > fromMs {
			unstarted = append(unstarted, id)
			continue
		}
		if toMs-prev > worst.Ms() {
			worst = gap{TriggerID: id, FromMs: prev, ToMs: toMs}
		}
	}
	return worst, unstarted
}

// soakFacts is what the database says after the soak.
type soakFacts struct {
	FromMs, ToMs     int64
	Times            map[string][]int64
	Worst            gap
	Unstarted        []string
	Runs, WindowRuns int
	GridChecked      int
	OffGrid          int
	Duplicates       int
	Malformed        int
	MalformedSample  []string
}

func readSoakFacts(t testing.TB, c *pgx.Conn, fromMs, toMs int64) soakFacts {
	t.Helper()
	f := soakFacts{FromMs: fromMs, ToMs: toMs, Times: admissionTimes(t, c)}
	f.Worst, f.Unstarted = longestGap(f.Times, fromMs, toMs)
	f.Runs = count(t, c, "SELECT count(*) FROM qinglong.runs")
	f.WindowRuns = count(t, c, "SELECT count(*) FROM qinglong.runs WHERE created_at_ms > $1 AND created_at_ms <= $2", fromMs, toMs)
	f.GridChecked, f.OffGrid = offGrid(t, c)
	f.Duplicates = duplicateOccurrences(t, c)
	f.Malformed, f.MalformedSample = malformedAdmissions(t, c)
	return f
}

// report logs the figures; bound is the gap bound, spelled out in
// boundParts.
func (f soakFacts) report(t testing.TB, bound time.Duration, boundParts string) {
	t.Helper()
	perSecond := float64(f.WindowRuns) * 1000 / float64(f.ToMs-f.FromMs)
	t.Logf("gate figures: %d Runs (%d in the fault window, %.0f/s); %d duplicate occurrences; %d malformed admissions; %d of %d scheduled times off the cron grid",
		f.Runs, f.WindowRuns, perSecond, f.Duplicates, f.Malformed, f.OffGrid, f.GridChecked)
	t.Logf("gate figures: longest gap without admission %d ms (trigger %s, %s → %s), bound %v",
		f.Worst.Ms(), f.Worst.TriggerID, fmtMs(f.Worst.FromMs), fmtMs(f.Worst.ToMs), bound.Round(time.Millisecond))
	t.Logf("gate figures: the bound %s", boundParts)
}

// check fails the test for every broken guarantee, a gap longer than
// bound among them; gapExceeded lets the caller add what it knows of the
// gap.
func (f soakFacts) check(t testing.TB, bound time.Duration) (gapExceeded bool) {
	t.Helper()
	if f.Duplicates != 0 {
		t.Errorf("%d duplicate occurrences", f.Duplicates)
	}
	if f.Malformed != 0 {
		t.Errorf("%d Runs without exactly one Attempt and their two admission events, e.g. %v", f.Malformed, f.MalformedSample)
	}
	if f.OffGrid != 0 || f.GridChecked != f.Runs {
		t.Errorf("%d of %d scheduled times off the cron grid (%d Runs)", f.OffGrid, f.GridChecked, f.Runs)
	}
	if len(f.Times) != soakTriggers || len(f.Unstarted) != 0 {
		t.Errorf("%d triggers admitted, %d of them not before the fault window; want all %d", len(f.Times), len(f.Unstarted), soakTriggers)
	}
	if f.Worst.Ms() <= bound.Milliseconds() {
		return false
	}
	var nearby []string
	for _, at := range f.Times[f.Worst.TriggerID] {
		if at >= f.Worst.FromMs-nearbyMs && at <= f.Worst.ToMs+nearbyMs {
			nearby = append(nearby, fmtMs(at))
		}
	}
	t.Errorf("trigger %s went %d ms without an admission (%s → %s), longer than the bound %v; its admissions nearby: %v",
		f.Worst.TriggerID, f.Worst.Ms(), fmtMs(f.Worst.FromMs), fmtMs(f.Worst.ToMs), bound.Round(time.Millisecond), nearby)
	return true
}

// nearbyMs is how far around a gap its admissions are listed.
const nearbyMs = int64(5 * time.Second / time.Millisecond)
