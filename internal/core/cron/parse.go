package cron

import (
	"strings"
	"time"

	// robfig/cron/v3 is feature-complete but unmaintained since 2020. We still
	// use it because its grammar is the de-facto standard for Go cron
	// expressions, so an expression means here what users expect. We use only
	// its parser, to get the field bitmasks; occurrences come from our own
	// search (next.go), because robfig's Next resolves daylight-saving gaps
	// and overlaps differently from our rule.
	robfig "github.com/robfig/cron/v3"
)

// starBit is robfig's marker, set on a field mask when the field was written
// as "*", "?" or "*/1". The day fields read it (an unrestricted day field
// does not restrict the other); the hour field does not, see hourStar.
const starBit = 1 << 63

// everyHour is the hour mask of a field that names all 24 hours.
const everyHour = 1<<24 - 1

// specParser accepts exactly our grammar: 5 fields or 6 with leading seconds.
// Descriptor is deliberately absent; macros are rejected before parsing with
// a better message (macros.go).
var specParser = robfig.NewParser(robfig.SecondOptional | robfig.Minute | robfig.Hour |
	robfig.Dom | robfig.Month | robfig.Dow)

// Schedule is a parsed, validated cron expression bound to a timezone. It is
// immutable and safe for concurrent use.
type Schedule struct {
	expression string
	location   *time.Location
	// Field bitmasks as produced by robfig: bit n set means value n matches;
	// starBit as described above.
	second, minute, hour, dom, month, dow uint64
	// horizon is how far Next searches (seconds), 0 when the day fields
	// match no calendar date.
	horizon int64
}

// Parse validates expr and timezone and returns a Schedule. Every error is a
// *ParseError saying what was wrong and what to write instead.
func Parse(expr, timezone string) (*Schedule, error) {
	fields, layout, err := splitFields(expr)
	if err != nil {
		return nil, err
	}
	loc, err := loadLocation(timezone)
	if err != nil {
		return nil, err
	}
	parsed, err := specParser.Parse(strings.Join(fields, " "))
	if err != nil {
		return nil, locateFieldError(expr, fields, layout, err)
	}
	// robfig returns another Schedule type only for descriptors, which
	// specParser does not enable.
	spec := parsed.(*robfig.SpecSchedule)
	return &Schedule{
		expression: expr,
		location:   loc,
		second:     spec.Second,
		minute:     spec.Minute,
		hour:       spec.Hour,
		dom:        spec.Dom,
		month:      spec.Month,
		dow:        spec.Dow,
		horizon:    horizonSeconds(spec.Dom, spec.Month, spec.Dow),
	}, nil
}

// Expression returns the expression exactly as given to Parse.
func (s *Schedule) Expression() string { return s.expression }

// Location returns the schedule's timezone.
func (s *Schedule) Location() *time.Location { return s.location }

// hourStar reports whether the expression follows real elapsed time across
// DST transitions instead of firing skipped times once and repeated times
// once. It asks which hours the field names, not how it was written: "*",
// "*/1", "0/1", "0-23" and a list of all 24 hours are one set, so they are
// one schedule; robfig's star bit is set only for some of these spellings.
func (s *Schedule) hourStar() bool { return s.hour&everyHour == everyHour }
