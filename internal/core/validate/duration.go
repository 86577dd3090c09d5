package validate

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// DurationForms says what every user-given duration may be written as: a
// refusal of one ends with it, whichever field, flag or form box it came
// from, so a day written 1d reads the same everywhere.
const DurationForms = durationUnits + "500ms, 30s, 5m, 2h, 1d or 1d12h"

const durationUnits = "write a number with a unit (ms, s, m, h or d), e.g. "

const day = 24 * time.Hour

// durationExamples are the durations DurationForms shows, as it writes
// them.
var durationExamples = []struct {
	d time.Duration
	s string
}{{500 * time.Millisecond, "500ms"}, {30 * time.Second, "30s"}, {5 * time.Minute, "5m"}, {2 * time.Hour, "2h"}, {day, "1d"}, {day + 12*time.Hour, "1d12h"}}

// DurationExamples are the examples a refusal of a duration from lo to hi
// shows: those of DurationForms inside the range, or the range's bounds
// when fewer than two are, so that no example is one the same refusal
// would refuse (a token's expiry of at least 1m is not told "e.g. 500ms").
func DurationExamples(lo, hi time.Duration) []string {
	var out []string
	for _, e := range durationExamples {
		if e.d >= lo && e.d <= hi {
			out = append(out, e.s)
		}
	}
	if len(out) < 2 {
		return []string{DurationBound(lo), DurationBound(hi)}
	}
	return out
}

// DurationFormsIn is DurationForms with the examples of a range from lo
// to hi (DurationExamples).
func DurationFormsIn(lo, hi time.Duration) string {
	ex := DurationExamples(lo, hi)
	return durationUnits + strings.Join(ex[:len(ex)-1], ", ") + " or " + ex[len(ex)-1]
}

// ParseDuration reads a user-given duration: Go's (500ms, 30s, 5m, 2h,
// 1h30m), whole days (1d, 90d), or whole days followed by Go's (1d12h).
// Days come first and once, so 12h1d is refused rather than guessed at;
// a sign is Go's alone (-1h), never a day's.
func ParseDuration(s string) (time.Duration, bool) {
	days, rest, found := strings.Cut(s, "d")
	if !found {
		d, err := time.ParseDuration(s)
		return d, err == nil
	}
	n, err := strconv.ParseUint(days, 10, 63)
	if err != nil || n > uint64(math.MaxInt64/day) {
		return 0, false
	}
	d := time.Duration(n) * day
	if rest == "" {
		return d, true
	}
	if rest[0] == '-' || rest[0] == '+' {
		return 0, false
	}
	r, err := time.ParseDuration(rest)
	if err != nil || r > math.MaxInt64-d {
		return 0, false
	}
	return d + r, true
}

// NotADuration is the sentence refusing value, given to field, as no
// duration from lo to hi.
func NotADuration(field, value string, lo, hi time.Duration) string {
	return field + ": " + strconv.Quote(value) + " is not a duration from " + DurationBound(lo) + " to " + DurationBound(hi) + ": " + DurationFormsIn(lo, hi)
}

// DurationOutOfRange is the sentence refusing value, given to field, as
// a duration that reads but falls outside lo to hi: it is one, so it is
// not refused as "not a duration", and every range refusal, too short or
// too long, has this one form.
func DurationOutOfRange(field, value string, lo, hi time.Duration) string {
	return field + ": " + value + " is out of range: it takes " + DurationBound(lo) + " to " + DurationBound(hi)
}

// DurationOutOfRangeError refuses d, a duration given to field that falls
// outside lo to hi, as a definition's own checks find it (a spec that came
// through the API or the console rather than `ql apply`'s parser): the
// sentence of DurationOutOfRange, with d spelt as Duration does, and the
// reason and fields the parser's refusal carries, so both routes say the
// same words.
func DurationOutOfRangeError(field string, d, lo, hi time.Duration) *qlerror.Error {
	v := Duration(d)
	return qlerror.New(qlerror.Invalid, "%s", DurationOutOfRange(field, v, lo, hi)).
		Because(RefusalNotDuration, "field", field, "value", v, "min", DurationBound(lo), "max", DurationBound(hi))
}

// DurationBound spells a range's bound as it may be written: whole days
// of two days or more in days (365d rather than 8760h), else as Duration
// does.
func DurationBound(d time.Duration) string {
	if d >= 2*day && d%day == 0 {
		return strconv.FormatInt(int64(d/day), 10) + "d"
	}
	return Duration(d)
}
