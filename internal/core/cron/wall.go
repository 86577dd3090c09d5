package cron

import "math/bits"

// wallNext returns the first wall time w with lo <= w < limit whose fields all
// match, searching the civil calendar only (no zone, so no DST). Like
// robfig's search it skips whole months, days, hours and minutes that cannot
// match, so it costs at most a few steps per day of the range; callers bound
// the range.
func (s *Schedule) wallNext(lo, limit int64) (int64, bool) {
	for lo < limit {
		c := civilOf(lo)
		day := c.dayStart()
		hour := day + int64(c.hour)*secondsPerHour
		minute := hour + int64(c.minute)*secondsPerMinute
		switch {
		case !bitSet(s.month, c.month):
			lo = s.nextMonthStart(c)
		case !s.dayMatches(c):
			lo = day + secondsPerDay
		case !bitSet(s.hour, c.hour):
			lo = advance(day, c.hour, s.hour, 23, secondsPerHour, secondsPerDay)
		case !bitSet(s.minute, c.minute):
			lo = advance(hour, c.minute, s.minute, 59, secondsPerMinute, secondsPerHour)
		case !bitSet(s.second, c.second):
			lo = advance(minute, c.second, s.second, 59, 1, secondsPerMinute)
		default:
			return lo, true
		}
	}
	return 0, false
}

// dayMatches mirrors robfig's rule so expressions mean what they mean there:
// if either day field is a star, both must match; if both are restricted,
// either may match (classic cron OR semantics).
func (s *Schedule) dayMatches(c civil) bool {
	domMatch := bitSet(s.dom, c.day)
	dowMatch := bitSet(s.dow, c.wday)
	if s.dom&starBit != 0 || s.dow&starBit != 0 {
		return domMatch && dowMatch
	}
	return domMatch || dowMatch
}

// nextMonthStart returns the first day of the next allowed month after c's
// month, or January 1st of the following year when none is left this year.
func (s *Schedule) nextMonthStart(c civil) int64 {
	if m := nextBit(s.month, c.month+1, 12); m >= 0 {
		return daysFromCivil(c.year, m, 1) * secondsPerDay
	}
	return daysFromCivil(c.year+1, 1, 1) * secondsPerDay
}

// advance moves to the next allowed value of a field after cur, within the
// enclosing unit starting at base; when none is left it moves to the start of
// the next enclosing unit (base+span) and lets the caller re-check the
// coarser fields.
func advance(base int64, cur int, mask uint64, maxValue int, unit, span int64) int64 {
	if v := nextBit(mask, cur+1, maxValue); v >= 0 {
		return base + int64(v)*unit
	}
	return base + span
}

func bitSet(mask uint64, v int) bool { return mask&(1<<uint(v)) != 0 }

// nextBit returns the smallest v in [from, maxValue] whose bit is set in mask,
// or -1. The star bit (63) is never in range because maxValue <= 59.
func nextBit(mask uint64, from, maxValue int) int {
	if from > maxValue {
		return -1
	}
	inRange := mask >> uint(from) << uint(from) & (1<<uint(maxValue+1) - 1)
	if inRange == 0 {
		return -1
	}
	return bits.TrailingZeros64(inRange)
}
