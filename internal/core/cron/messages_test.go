package cron

import (
	"errors"
	"strings"
	"testing"
)

// refusal parses expr and returns its ParseError, failing the test when it
// parses.
func refusal(t *testing.T, expr string) *ParseError {
	t.Helper()
	_, err := Parse(expr, "UTC")
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("Parse(%q) = %v, want a ParseError", expr, err)
	}
	return pe
}

// A range or step missing a number is refused naming the field and what
// is missing, never in the parser's own words (strconv.Atoi).
func TestAnIncompleteRangeOrStepSaysWhichFieldLacksWhichNumber(t *testing.T) {
	t.Parallel()
	for expr, want := range map[string][]string{
		"5- * * * *":     {`minute field "5-"`, `range "5-" has no end`},
		"0 -3 * * *":     {`hour field "-3"`, `range "-3" has no start`},
		"5/ * * * *":     {`minute field "5/"`, `"5/" has no step after "/"`},
		"0 0 1-5/ * *":   {`day-of-month field "1-5/"`, `has no step`},
		"0 0 * * /2":     {`day-of-week field "/2"`, `nothing before "/"`},
		"0 5- * * * *":   {`minute field "5-"`},
		"0 0 * 1,3- *":   {`month field "1,3-"`, `range "3-" has no end`},
		"0 0 * * MON-":   {`day-of-week field "MON-"`, `has no end`},
		"0 0 * * 1-/2 ":  {`day-of-week field "1-/2"`, `has no end`},
		"*/ * * * *":     {`"*/" has no step`},
		"0 0 1- 1 MON-2": {`day-of-month field "1-"`},
	} {
		pe := refusal(t, expr)
		msg := pe.Error()
		if pe.Reason != RefusalIncomplete || strings.Contains(msg, "strconv") || strings.Contains(msg, "failed to parse int") {
			t.Errorf("%q: %s (%s), want %s in words a person acts on", expr, msg, pe.Reason, RefusalIncomplete)
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("%q: %s, want it to say %q", expr, msg, w)
			}
		}
	}
}

// An interval (@every) is refused suggesting the expression that fires at
// its rate when one exists, and saying that none does otherwise, never an
// expression of another rate.
func TestAnIntervalSuggestsTheExpressionFiringAtItsRateOrSaysNoneExists(t *testing.T) {
	t.Parallel()
	for every, instead := range map[string]string{
		"1h": "0 * * * *", "30s": "*/30 * * * * *", "1s": "* * * * * *", "1m": "* * * * *", "15m": "*/15 * * * *",
		"2h": "0 */2 * * *", "24h": "0 0 * * *", "60m": "0 * * * *",
	} {
		pe := refusal(t, "@every "+every)
		if pe.Reason != RefusalEvery || pe.Params["instead"] != instead || !strings.Contains(pe.Error(), `write "`+instead+`" instead`) {
			t.Errorf("@every %s: %s (%s %v), want %q suggested", every, pe.Error(), pe.Reason, pe.Params, instead)
		}
	}
	for _, every := range []string{"90m", "45s", "7h", "48h", "1h30m", "500ms"} {
		pe := refusal(t, "@every "+every)
		if pe.Reason != RefusalEveryNone || !strings.Contains(pe.Error(), "no cron expression fires every "+every) || strings.Contains(pe.Error(), "*/5") {
			t.Errorf("@every %s: %s (%s), want it to say no expression fires at that rate", every, pe.Error(), pe.Reason)
		}
	}
	if pe := refusal(t, "@every soon"); pe.Reason != RefusalEveryNone || !strings.Contains(pe.Error(), "duration such as 30s") {
		t.Errorf("@every soon: %s, want it to say @every takes a duration", pe.Error())
	}
}

// A startup trigger (@reboot) is refused saying QingLong has none and what
// to do instead, not suggesting an expression of a daily time.
func TestAStartupTriggerSaysQingLongHasNoneAndWhatToDoInstead(t *testing.T) {
	t.Parallel()
	pe := refusal(t, "@reboot")
	msg := pe.Error()
	for _, w := range []string{"QingLong has no trigger that fires when a machine or server starts", "systemd", "`ql triggers run PROJECT/TRIGGER`"} {
		if !strings.Contains(msg, w) {
			t.Errorf("@reboot: %s, want it to say %q", msg, w)
		}
	}
	if strings.Contains(msg, "0 3 * * *") {
		t.Errorf("@reboot: %s suggests a daily time, which fires at no start", msg)
	}
}
