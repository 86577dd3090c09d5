package cron

import (
	"math/rand/v2"
	"testing"
	"time"

	robfig "github.com/robfig/cron/v3"
)

// propertyZones covers both hemispheres, 30-minute and 2-hour shifts, gaps
// and overlaps at midnight, a whole skipped day (Apia, December 2011), a
// zone with four changes a year (Casablanca) and zones without DST.
var propertyZones = []string{
	"America/New_York", "Europe/Berlin", "Australia/Sydney", "Australia/Lord_Howe",
	"America/Santiago", "America/Havana", "Antarctica/Troll", "Pacific/Apia",
	"Pacific/Chatham", "Africa/Casablanca", "Asia/Shanghai", "UTC",
}

func loadZone(tb testing.TB, name string) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatal(err)
	}
	return loc
}

func offsetAt(loc *time.Location, sec int64) int64 {
	_, off := time.Unix(sec, 0).In(loc).Zone()
	return int64(off)
}

// wallMatches is the test oracle for "these wall-clock fields match",
// written against the time package rather than civil.go.
func wallMatches(s *Schedule, wall int64) bool {
	t := time.Unix(wall, 0).UTC()
	has := func(mask uint64, v int) bool { return mask>>uint(v)&1 == 1 }
	dom, dow := has(s.dom, t.Day()), has(s.dow, int(t.Weekday()))
	day := dom || dow
	if s.dom&starBit != 0 || s.dow&starBit != 0 {
		day = dom && dow
	}
	return day && has(s.month, int(t.Month())) && has(s.hour, t.Hour()) &&
		has(s.minute, t.Minute()) && has(s.second, t.Second())
}

func anyWallMatches(s *Schedule, from, to int64) bool {
	for w := from; w < to; w++ {
		if wallMatches(s, w) {
			return true
		}
	}
	return false
}

// bruteForce lists the firing instants in [start, end) by stepping every
// second and applying docs/architecture.md, "Cron time and daylight saving" literally: remember the latest wall time shown
// so far; a wall time at or below it is a repeat, a jump past it is a gap.
func bruteForce(s *Schedule, loc *time.Location, start, end int64) []int64 {
	const warmUp = 3 * 3600 // longer than any overlap in propertyZones
	first := start - warmUp
	maxWall := first - 1 + offsetAt(loc, first-1)
	var out []int64
	for i := first; i < end; i++ {
		wall := i + offsetAt(loc, i)
		var fire bool
		switch {
		case s.hourStar():
			fire = wallMatches(s, wall)
		case wall <= maxWall:
			fire = false
		default:
			fire = wallMatches(s, wall) || anyWallMatches(s, maxWall+1, wall)
		}
		maxWall = max(maxWall, wall)
		if fire && i >= start {
			out = append(out, i)
		}
	}
	return out
}

// transitionNear picks a zone transition: the first after a random instant
// (Apia: its December 2011 day skip).
func transitionNear(rng *rand.Rand, loc *time.Location) time.Time {
	lo := time.Date(2005, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(2035, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	if loc.String() == "Pacific/Apia" {
		lo = time.Date(2011, 10, 1, 0, 0, 0, 0, time.UTC).Unix()
		hi = time.Date(2011, 12, 1, 0, 0, 0, 0, time.UTC).Unix()
	}
	at := time.Unix(lo+rng.Int64N(hi-lo), 0).In(loc)
	if _, end := at.ZoneBounds(); !end.IsZero() {
		return end
	}
	return at
}

func TestNextMatchesBruteForceAroundTransitions(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	const cases, window = 300, 4 * 3600
	for range cases {
		loc := loadZone(t, propertyZones[rng.IntN(len(propertyZones))])
		center := transitionNear(rng, loc)
		hint := center.Hour()
		if rng.IntN(2) == 0 {
			hint = center.Add(-time.Second).Hour()
		}
		s := mustParse(t, randomExpr(rng, hint), loc.String())
		start := center.Unix() - rng.Int64N(window)
		want := bruteForce(s, loc, start, start+window)
		var got []int64
		for after := start*1000 - 1; ; {
			next, ok := s.Next(after)
			if !ok || next >= (start+window)*1000 {
				break
			}
			got = append(got, next/1000)
			after = next
		}
		if len(got) != len(want) {
			t.Fatalf("%q in %s from %s: got %d firings, brute force %d\n got %v\nwant %v",
				s.Expression(), loc, time.Unix(start, 0).UTC(), len(got), len(want), got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%q in %s from %s: firing %d at %s, brute force says %s",
					s.Expression(), loc, time.Unix(start, 0).UTC(), i, time.Unix(got[i], 0).UTC(), time.Unix(want[i], 0).UTC())
			}
		}
	}
}

func TestNextChainProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	lo := time.Date(1971, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	hi := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for range 500 {
		loc := loadZone(t, propertyZones[rng.IntN(len(propertyZones))])
		s := mustParse(t, randomExpr(rng, rng.IntN(4)), loc.String())
		after := lo + rng.Int64N(hi-lo)
		seen := map[int64]bool{}
		for range 40 {
			next, ok := s.Next(after)
			if !ok {
				break
			}
			checkFiring(t, s, loc, after, next, seen)
			// Next depends only on the instant asked about, not on history.
			if mid := after + rng.Int64N(next-after); mid < next {
				if again, _ := s.Next(mid); again != next {
					t.Fatalf("%q in %s: Next(%d)=%d but Next(%d)=%d", s.Expression(), loc, after, next, mid, again)
				}
			}
			after = next
		}
	}
}

// checkFiring asserts the guarantees of one result: strictly later, whole
// seconds, and either a matching wall time or (fixed hour only) the first
// instant after a gap that swallowed a matching wall time — so never a wall
// time inside a gap; for fixed-hour expressions no wall time fires twice.
func checkFiring(t *testing.T, s *Schedule, loc *time.Location, after, next int64, seen map[int64]bool) {
	t.Helper()
	expr := s.Expression()
	if next <= after || next%1000 != 0 {
		t.Fatalf("%q in %s: Next(%d) = %d, want a later whole second", expr, loc, after, next)
	}
	sec := next / 1000
	wall := sec + offsetAt(loc, sec)
	prevWall := sec - 1 + offsetAt(loc, sec-1)
	switch {
	case wallMatches(s, wall):
	case s.hourStar():
		t.Fatalf("%q in %s: fired at %s whose wall time does not match", expr, loc, time.Unix(sec, 0).In(loc))
	case wall > prevWall+1 && anyWallMatches(s, prevWall+1, wall):
	default:
		t.Fatalf("%q in %s: fired at %s, neither a match nor the end of a matching gap", expr, loc, time.Unix(sec, 0).In(loc))
	}
	if !s.hourStar() {
		if seen[wall] {
			t.Fatalf("%q in %s: wall time %s fired twice", expr, loc, time.Unix(wall, 0).UTC().Format(time.DateTime))
		}
		seen[wall] = true
	}
}

// In UTC there is no DST, so the result must equal robfig's own Next; this
// pins our civil search to robfig's reading of every field.
func TestNextAgreesWithRobfigInUTC(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	lo := time.Date(1971, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	hi := time.Date(2095, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	const fourYears = 4 * 365 * 24 * 3600 * 1000
	for range 3000 {
		expr := randomExpr(rng, -1)
		s := mustParse(t, expr, "UTC")
		parsed, err := specParser.Parse(expr)
		if err != nil {
			t.Fatal(err)
		}
		spec := parsed.(*robfig.SpecSchedule)
		spec.Location = time.UTC
		after := lo + rng.Int64N(hi-lo)
		got, ok := s.Next(after)
		want := spec.Next(time.UnixMilli(after).UTC())
		switch {
		case want.IsZero():
			if ok && got-after < fourYears {
				t.Fatalf("%q after %s: robfig finds none, we find %s", expr, utcString(after), utcString(got))
			}
		case want.UnixMilli()-after > fourYears:
		case !ok || got != want.UnixMilli():
			t.Fatalf("%q after %s: got %s (ok=%v), robfig %s", expr, utcString(after), utcString(got), ok, want)
		}
	}
}

func TestCivilArithmeticAgreesWithTimePackage(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		sec := minSeconds + rng.Int64N(maxSeconds-minSeconds)
		want := time.Unix(sec, 0).UTC()
		c := civilOf(sec)
		if c.year != int64(want.Year()) || c.month != int(want.Month()) || c.day != want.Day() ||
			c.hour != want.Hour() || c.minute != want.Minute() || c.second != want.Second() || c.wday != int(want.Weekday()) {
			t.Fatalf("civilOf(%d) = %+v, want %s (%s)", sec, c, want, want.Weekday())
		}
		if got := c.dayStart(); got != sec-int64(want.Hour()*3600+want.Minute()*60+want.Second()) {
			t.Fatalf("dayStart of %s = %d", want, got)
		}
	}
}
