package cron

// The search horizon is derived from the day fields, not fixed: a fixed
// window either misses rare days (February 29th is eight years from the next
// one across a century year that is not a leap year: 2096 → 2104) or wastes
// work on days that never exist (February 30th).
const (
	// yearGapDays bounds the wait for a matching day when a month/day pair
	// other than February 29th matches (it recurs every year) or a weekday
	// decides (every month holds every weekday).
	yearGapDays = 366
	// leapGapDays bounds the wait when only February 29th matches: leap
	// years are four years apart except across 2100, 2200, 2300, ….
	leapGapDays = 8 * 366
	// zoneSlackDays covers the difference between wall time and instant
	// (offsets differ by at most a day, Apia's skipped 30 December 2011).
	zoneSlackDays = 3
)

// daysInMonth is each month's longest length (February in a leap year).
var daysInMonth = [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// horizonSeconds returns how far Next must search for the day fields to be
// sure of an occurrence, or 0 when no calendar date can match them, so such
// an expression is answered without any search. Every matching day has a
// matching time of day (no field mask is empty), which fires even when a
// gap swallows it, unless the zone skipped that whole day; twice the longest
// gap keeps the next such day inside the horizon too.
func horizonSeconds(dom, month, dow uint64) int64 {
	gap := dayGap(dom, month, dow)
	if gap == 0 {
		return 0
	}
	return (2*gap + zoneSlackDays) * secondsPerDay
}

// dayGap is the longest wait in days between two matching calendar days, 0
// when none exists. Day-of-month and day-of-week combine as in dayMatches:
// with either one a star both must match, otherwise either may.
func dayGap(dom, month, dow uint64) int64 {
	if dom&starBit != 0 || dow&starBit == 0 {
		// A star day-of-month leaves the weekday to decide, and with both
		// fields restricted the weekday alone suffices: every allowed month
		// holds each weekday, so the next one is at most a year away.
		return yearGapDays
	}
	// Day-of-week is a star: the day of the month alone decides.
	leapDayOnly := false
	for m := 1; m <= 12; m++ {
		if !bitSet(month, m) {
			continue
		}
		for d := 1; d <= daysInMonth[m]; d++ {
			if !bitSet(dom, d) {
				continue
			}
			if m == 2 && d == 29 {
				leapDayOnly = true
				continue
			}
			return yearGapDays
		}
	}
	if leapDayOnly {
		return leapGapDays
	}
	return 0
}
