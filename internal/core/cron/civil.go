package cron

// Civil-calendar arithmetic on wall-clock seconds: a wall time is encoded as
// the seconds since 1970-01-01T00:00:00 of the proleptic Gregorian calendar,
// as if it were UTC. Plain integer maths keeps the search allocation-free and
// independent of any zone.

const (
	secondsPerMinute = 60
	secondsPerHour   = 3600
	secondsPerDay    = 86400
)

// civil is a wall time broken into calendar fields.
type civil struct {
	year                                   int64
	month, day, hour, minute, second, wday int
}

// daysFromCivil returns the days since 1970-01-01 of y-m-d (m in 1..12).
// d may exceed the month's length; the result then simply runs on into the
// following month. Algorithm: H. Hinnant, "chrono-Compatible Low-Level Date
// Algorithms".
func daysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilOf splits wall seconds into calendar fields.
func civilOf(wall int64) civil {
	days := floorDiv(wall, secondsPerDay)
	sod := int(wall - days*secondsPerDay)
	z := days + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	month := int(mp+2)%12 + 1
	year := yoe + era*400
	if month <= 2 {
		year++
	}
	return civil{
		year:   year,
		month:  month,
		day:    int(doy - (153*mp+2)/5 + 1),
		hour:   sod / secondsPerHour,
		minute: sod % secondsPerHour / secondsPerMinute,
		second: sod % secondsPerMinute,
		// 1970-01-01 was a Thursday (weekday 4).
		wday: int(floorMod(days+4, 7)),
	}
}

// dayStart returns the wall seconds of this day's midnight.
func (c civil) dayStart() int64 { return daysFromCivil(c.year, c.month, c.day) * secondsPerDay }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }
