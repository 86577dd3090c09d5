package cron

import (
	"errors"
	"strings"
	"testing"
)

// A step as large as its field matches only the range's first value, once
// a period: it is refused for new revisions, naming the field, while Parse
// still accepts it (stored triggers keep deciding). Smaller steps pass.
func TestCheckStepsRefusesAStepAsLargeAsItsField(t *testing.T) {
	t.Parallel()
	for expr, field := range map[string]string{
		"*/90 * * * *":      "minute",
		"0 */24 * * *":      "hour",
		"0 0 */31 * *":      "day-of-month",
		"*/61 * * * * *":    "second",
		"0 0 1 1-12/12 *":   "month",
		"0 0 * * */7":       "day-of-week",
		"0 1,5-20/40 * * *": "hour",
	} {
		if _, err := Parse(expr, "UTC"); err != nil {
			t.Errorf("Parse(%q) refused it (%v); stored triggers must keep deciding", expr, err)
		}
		err := CheckSteps(expr)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Part != field || !strings.Contains(err.Error(), "matches only the first value") {
			t.Errorf("CheckSteps(%q) = %v; want the %s field refused", expr, err, field)
		}
	}
	if err := CheckSteps("*/90 * * * *"); err == nil || !strings.Contains(err.Error(), "once an hour") || !strings.Contains(err.Error(), "longer than an hour") {
		t.Errorf(`CheckSteps("*/90 * * * *") = %v; want its period named "an hour"`, err)
	}
	for _, expr := range []string{"*/59 * * * *", "0 */23 * * *", "*/15 9-17 * * MON-FRI", "0 0 1 */6 *", "30 2 * * *"} {
		if err := CheckSteps(expr); err != nil {
			t.Errorf("CheckSteps(%q) = %v; want it accepted", expr, err)
		}
	}
}
