package cron

import (
	"math"
	"time"
)

const (
	// maxSegments bounds the zone walk independently of the horizon. Real zones
	// change offset a few times a year; even Morocco's four changes a year stay
	// far below it over the longest horizon (about sixteen years).
	maxSegments = 256
	// Occurrences are only searched within years 1..9999: nothing outside is
	// a meaningful trigger time, and the bound keeps all arithmetic far from
	// int64 overflow.
	minSeconds = -62135596800 // 0001-01-01T00:00:00Z
	maxSeconds = 253402300799 // 9999-12-31T23:59:59Z
)

// LastMs is the last instant Next searches, 9999-12-31T23:59:59Z.
const LastMs = maxSeconds * 1000

// MatchesSomeDate reports whether the day fields match some calendar
// date. When they do, Next answers false only when the next occurrence
// lies after LastMs: it ran out of time, not of dates.
func (s *Schedule) MatchesSomeDate() bool { return s.horizon != 0 }

// Next returns the first occurrence strictly after afterMs (UTC epoch
// milliseconds), in whole seconds expressed as milliseconds, and false when
// there is none: the day fields match no calendar date, or the next one lies
// after year 9999. The search horizon (horizon.go) is long enough for every
// expression that matches some date to find it.
//
// It does not use robfig's Next, which steps the zone's wall clock with
// time.Time arithmetic: a fixed-hour time in a spring-forward gap ("30 2 * * *"
// on a New York spring-forward day, even "0 0 * * *" on a Santiago one) is
// skipped for that day, and a fixed-hour time in a fall-back overlap fires
// twice. docs/architecture.md, "Cron time and daylight saving" wants the opposite in both cases (see doc.go). Here each
// segment of constant UTC offset is searched with the civil calendar, and the
// rule is applied where segments meet.
func (s *Schedule) Next(afterMs int64) (int64, bool) {
	from := max(floorDiv(afterMs, 1000)+1, minSeconds)
	if from > maxSeconds || s.horizon == 0 {
		return 0, false
	}
	horizon := min(from+s.horizon, maxSeconds+1)
	seg := segmentAt(s.location, from)
	for range maxSegments {
		if at, ok := s.gapFiring(seg, from); ok {
			return at * 1000, true
		}
		end := min(seg.end, horizon)
		if wall, ok := s.wallNext(s.lowerWall(seg, from), end+seg.offset); ok {
			return (wall - seg.offset) * 1000, true
		}
		if seg.end >= horizon {
			return 0, false
		}
		seg = segmentAt(s.location, seg.end)
	}
	return 0, false
}

// gapFiring applies the spring-forward half of the rule for fixed-hour
// expressions: when seg begins with a gap at or after from, and some matching
// wall time fell into the gap, it fires once at the first instant after the
// gap, which is seg.start.
func (s *Schedule) gapFiring(seg segment, from int64) (int64, bool) {
	if s.hourStar() || !seg.hasPrev || seg.start < from || seg.offset <= seg.prevOffset {
		return 0, false
	}
	_, ok := s.wallNext(seg.start+seg.prevOffset, seg.start+seg.offset)
	return seg.start, ok
}

// lowerWall is the first wall time the search in seg may return. Normally
// that is the wall time of the lower instant. For fixed-hour expressions a
// segment that begins with a fall-back overlap repeats wall times the previous
// segment already showed; starting at the previous segment's last wall time
// makes each repeated wall time fire only at its first occurrence.
func (s *Schedule) lowerWall(seg segment, from int64) int64 {
	wall := max(from, seg.start) + seg.offset
	if s.hourStar() || !seg.hasPrev {
		return wall
	}
	return max(wall, seg.start+seg.prevOffset)
}

// segment is a span [start, end) of instants (Unix seconds) during which the
// zone's UTC offset is constant, so wall time = instant + offset.
type segment struct {
	start, end int64
	offset     int64
	// prevOffset is the offset just before start; hasPrev is false when the
	// zone has no earlier transition (start is then math.MinInt64).
	prevOffset int64
	hasPrev    bool
}

func segmentAt(loc *time.Location, at int64) segment {
	t := time.Unix(at, 0).In(loc)
	_, offset := t.Zone()
	start, end := t.ZoneBounds()
	seg := segment{start: math.MinInt64, end: math.MaxInt64, offset: int64(offset)}
	if !start.IsZero() {
		_, prev := start.Add(-time.Second).Zone()
		seg.start, seg.prevOffset, seg.hasPrev = start.Unix(), int64(prev), true
	}
	if !end.IsZero() {
		seg.end = end.Unix()
	}
	// Past its transition table the time package extends a zone by its
	// yearly rule and ends a leap year's last span a day early (2040-12-31
	// instead of 2041-01-01, 00:00 UTC), so the span can end at or before
	// the instant asked about. Nothing changes offset there: the span runs
	// on to the end of the next year's first span.
	if seg.end <= at {
		_, next := time.Unix(seg.end+secondsPerDay, 0).In(loc).ZoneBounds()
		seg.end = math.MaxInt64
		if !next.IsZero() {
			seg.end = next.Unix()
		}
	}
	return seg
}
