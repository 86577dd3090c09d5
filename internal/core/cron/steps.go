package cron

import (
	"fmt"
	"strconv"
	"strings"
)

// stepSpan is, for each field, how many values it has and the period a
// step restarts at, with its article (cron counts a step from the range's
// first value again in every period of the next field).
var stepSpan = map[string]struct {
	values int
	period string
	// unit is the period's unit, in no language's words.
	unit string
}{
	"second":       {60, "a minute", "minute"},
	"minute":       {60, "an hour", "hour"},
	"hour":         {24, "a day", "day"},
	"day-of-month": {31, "a month", "month"},
	"month":        {12, "a year", "year"},
	"day-of-week":  {7, "a week", "week"},
}

// CheckSteps refuses a step as large as its field ("*/90" minutes): a step
// restarts in every period of the next field, so such a step matches only
// the first value of its range and never means what it reads as ("every
// 90 minutes" is hourly at minute 0). Parse accepts it, so that triggers
// stored before this check keep deciding; a new revision is checked with
// it. Any other mistake is Parse's to report.
func CheckSteps(expr string) error {
	fields, layout, err := splitFields(expr)
	if err != nil {
		return err
	}
	for i, text := range fields {
		f := layout[i]
		span := stepSpan[f.name]
		for item := range strings.SplitSeq(text, ",") {
			_, step, ok := strings.Cut(item, "/")
			if !ok {
				continue
			}
			if n, err := strconv.Atoi(step); err == nil && n >= span.values {
				return (&ParseError{Input: expr, Part: f.name,
					Problem: fmt.Sprintf("%s field %q: a step of %d is not smaller than the field's %d values, so it matches only the first value of the range, once %s",
						f.name, text, n, span.values, span.period),
					Hint: fmt.Sprintf("write that single value, or a step below %d; a period longer than %s needs more than one field, or more than one trigger", span.values, span.period)}).
					because(RefusalStep, "part", f.name, "text", text, "step", strconv.Itoa(n), "size", strconv.Itoa(span.values), "period", span.unit)
			}
		}
	}
	return nil
}
