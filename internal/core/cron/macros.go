package cron

import (
	"fmt"
	"strings"
	"time"
)

// macroEquivalents maps robfig's descriptors to the plain expression to write
// instead. Macros are rejected so that every stored trigger spells out its
// fields; one grammar is easier to validate, digest and display.
var macroEquivalents = map[string]string{
	"@yearly":   "0 0 1 1 *",
	"@annually": "0 0 1 1 *",
	"@monthly":  "0 0 1 * *",
	"@weekly":   "0 0 * * 0",
	"@daily":    "0 0 * * *",
	"@midnight": "0 0 * * *",
	"@hourly":   "0 * * * *",
}

func rejectMacro(expr, trimmed string) error {
	if !strings.HasPrefix(trimmed, "@") {
		return nil
	}
	name := strings.ToLower(strings.Fields(trimmed)[0])
	err := &ParseError{Input: expr, Part: "expression", Problem: fmt.Sprintf("macro %q is not supported", name)}
	switch {
	case macroEquivalents[name] != "":
		err.Hint = fmt.Sprintf("write %q instead", macroEquivalents[name])
		return err.because(RefusalMacro, "macro", name, "instead", macroEquivalents[name])
	case name == "@every":
		err.Problem = "interval triggers (@every) are not supported"
		every := strings.TrimSpace(strings.TrimPrefix(strings.ToLower(trimmed), name))
		if instead, ok := everyEquivalent(every); ok {
			err.Hint = fmt.Sprintf("write %q instead: it fires at the same rate, on the clock's boundaries rather than counted from a start", instead)
			return err.because(RefusalEvery, "every", every, "instead", instead)
		}
		if _, bad := time.ParseDuration(every); bad != nil {
			err.Hint = `write a cron expression such as "*/15 * * * *" (@every takes a duration such as 30s, 15m or 2h; for one that divides a minute, hour or day the expression firing at its rate is suggested)`
			return err.because(RefusalEveryNone, "every", every)
		}
		err.Hint = fmt.Sprintf("no cron expression fires every %s: steps restart at each minute, hour or day boundary, so only a period "+
			"that divides one of them (such as 30s, 15m or 2h) has one; choose such a period, or list the times (\"0 0,6,12,18 * * *\")", every)
		return err.because(RefusalEveryNone, "every", every)
	case name == "@reboot":
		err.Problem = "startup triggers (@reboot) are not supported: QingLong has no trigger that fires when a machine or server starts"
		err.Hint = "start the command from the host's own start-up (a systemd unit, or ExecStartPost= of the unit running `ql serve`); " +
			"to run a QingLong task then, give it a trigger that never fires by itself and call `ql triggers run PROJECT/TRIGGER` from there"
		return err.because(RefusalReboot)
	}
	err.Hint = `write 5 fields such as "0 0 * * *"`
	return err.because(RefusalUnknownMacro, "macro", name)
}

// rejectTimezonePrefix refuses robfig's TZ=/CRON_TZ= prefixes: the timezone is
// a separate, mandatory field of the trigger, and two sources of truth for it
// could disagree.
func rejectTimezonePrefix(expr, trimmed string) error {
	upper := strings.ToUpper(trimmed)
	if !strings.HasPrefix(upper, "TZ=") && !strings.HasPrefix(upper, "CRON_TZ=") {
		return nil
	}
	prefix, rest, _ := strings.Cut(trimmed, " ")
	_, zone, _ := strings.Cut(prefix, "=")
	return (&ParseError{Input: expr, Part: "expression",
		Problem: fmt.Sprintf("timezone prefix %q is not supported", prefix),
		Hint: fmt.Sprintf("put %q in the separate timezone field and write the expression as %q",
			zone, strings.TrimSpace(rest))}).because(RefusalTimezonePrefix, "prefix", prefix, "zone", zone, "rest", strings.TrimSpace(rest))
}

// everyEquivalent is the cron expression that fires every d (a Go
// duration, as @every takes), aligned to the clock: a whole number of
// seconds dividing a minute, of minutes dividing an hour, or of hours
// dividing a day; ok is false for any other period, which no expression
// has, because each field's steps restart at the next field's boundary.
func everyEquivalent(d string) (expr string, ok bool) {
	v, err := time.ParseDuration(d)
	if err != nil || v <= 0 {
		return "", false
	}
	step := func(n time.Duration) string {
		if n == 1 {
			return "*"
		}
		return fmt.Sprintf("*/%d", n)
	}
	switch {
	case v < time.Minute && v%time.Second == 0 && time.Minute%v == 0:
		return step(v/time.Second) + " * * * * *", true
	case v < time.Hour && v%time.Minute == 0 && time.Hour%v == 0:
		return step(v/time.Minute) + " * * * *", true
	case v < 24*time.Hour && v%time.Hour == 0 && 24*time.Hour%v == 0:
		return "0 " + step(v/time.Hour) + " * * *", true
	case v == 24*time.Hour:
		return "0 0 * * *", true
	}
	return "", false
}
