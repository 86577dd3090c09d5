package cron

import (
	"fmt"
	"strings"
)

// Days says how a schedule matches days. A day field restricts the day
// unless it is written as "*" or "?" (alone, stepped by 1 as "*/1", or as
// an item of a list): robfig's star bit, which Kubernetes CronJobs share.
// Every other spelling restricts it, even "*/2" and "1-31" (which names
// every day). When both day fields restrict the day, a day matching either
// fires; when one does not, a day must match both (the unrestricted one
// matching every day).
//
// Vixie cron (crontab, cronie) decides otherwise for a field whose text
// starts with "*": it reads it as unrestricted however it continues, so
// "0 0 */2 * 1" fires there only on odd days that are Mondays, and here on
// odd days and on Mondays. No expression here requires both restricted
// fields; nothing changes which times an expression fires, so the
// difference is said (Note) rather than acted on.
type Days struct {
	// Either: both day fields restrict the day, so a day matching either
	// fires.
	Either bool
	// DayOfMonth and DayOfWeek are the fields as written.
	DayOfMonth, DayOfWeek string
	// VixieBoth: Either, and one of the fields starts with "*", which
	// Vixie cron reads as unrestricted, requiring days matching both.
	VixieBoth bool
}

// Days says how s matches days.
func (s *Schedule) Days() Days {
	fields := strings.Fields(s.expression)
	// A 6-field expression leads with seconds; the day fields are the
	// last three but one either way.
	d := Days{DayOfMonth: fields[len(fields)-3], DayOfWeek: fields[len(fields)-1]}
	d.Either = s.dom&starBit == 0 && s.dow&starBit == 0
	d.VixieBoth = d.Either && (strings.HasPrefix(d.DayOfMonth, "*") || strings.HasPrefix(d.DayOfWeek, "*"))
	return d
}

// Note is the English sentence saying d when it fires on days matching
// either field, "" otherwise: which days fire, and, where Vixie cron would
// have required both, that no expression here does and what to do.
func (d Days) Note() string {
	if !d.Either {
		return ""
	}
	s := fmt.Sprintf("day-of-month %q and day-of-week %q both restrict the day, so it fires on days matching EITHER (as Kubernetes CronJobs do)", d.DayOfMonth, d.DayOfWeek)
	if d.VixieBoth {
		s += "; Vixie cron (crontab) reads a day field starting with \"*\" as unrestricted and would fire only on days matching BOTH. " + VixieBothHint
	}
	return s
}

// VixieBothHint says what to do for a crontab line whose day fields Vixie
// cron requires both of.
const VixieBothHint = "No expression here requires both: keep one day field in the expression, write \"*\" for the other, " +
	"and let the command check that day itself and exit when it does not match"
