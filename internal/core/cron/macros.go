package cron

import (
	"fmt"
	"strings"
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
		err.Hint = `write a cron expression such as "*/5 * * * *" (steps restart at each hour or day boundary)`
		return err.because(RefusalEvery)
	case name == "@reboot":
		err.Problem = "startup triggers (@reboot) are not supported"
		err.Hint = `write a cron expression such as "0 3 * * *"`
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
