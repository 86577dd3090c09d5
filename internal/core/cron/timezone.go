package cron

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

const timezoneHint = `give an IANA zone name such as "Europe/Berlin", "America/New_York" or "UTC"`

// TimezoneRequired is what to give where a zone is missing, a trigger's
// or a command's --tz: every missing zone is asked for in these words.
const TimezoneRequired = "give an IANA zone such as UTC or Europe/Berlin (the host zone is never implied)"

// loadLocation resolves the mandatory timezone. The host zone is never
// implied (docs/architecture.md, "Cron time and daylight saving"): a trigger must mean the same thing on every replica, so
// both the empty name (which time.LoadLocation maps to UTC) and "Local" are
// refused rather than silently resolved.
func loadLocation(name string) (*time.Location, error) {
	switch name {
	case "":
		return nil, (&ParseError{Input: name, Part: "timezone",
			Problem: "the IANA timezone is required (the host zone is never implied)",
			Hint:    timezoneHint}).because(RefusalTimezoneMissing)
	case "Local":
		return nil, (&ParseError{Input: name, Part: "timezone",
			Problem: `"Local" would mean the host's zone, which is never implied`,
			Hint:    timezoneHint}).because(RefusalTimezoneLocal)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		if z, ok := caseOf(name); ok {
			return nil, (&ParseError{Input: name, Part: "timezone",
				Problem: fmt.Sprintf("unknown IANA timezone %q (names are case-sensitive)", name),
				Hint:    fmt.Sprintf("did you mean %s?", z)}).because(RefusalTimezoneCase, "value", name, "suggest", z)
		}
		if z := strings.TrimSpace(name); z != name && z != "" {
			if _, err := time.LoadLocation(z); err == nil {
				return nil, (&ParseError{Input: name, Part: "timezone",
					Problem: fmt.Sprintf("unknown IANA timezone %q: zone names have no spaces around them", name),
					Hint:    fmt.Sprintf("remove them: %q", z)}).because(RefusalTimezoneUnknown, "value", name, "suggest", z)
			}
		}
		if near := nearestZones(name); len(near) > 0 {
			return nil, (&ParseError{Input: name, Part: "timezone",
				Problem: fmt.Sprintf("unknown IANA timezone %q", name),
				Hint:    fmt.Sprintf("did you mean %s?", strings.Join(near, " or "))}).because(RefusalTimezoneUnknown, "value", name, "suggest", strings.Join(near, ", "))
		}
		return nil, (&ParseError{Input: name, Part: "timezone",
			Problem: fmt.Sprintf("unknown IANA timezone %q", name),
			Hint:    timezoneHint + " (names are case-sensitive)"}).because(RefusalTimezoneUnknown, "value", name)
	}
	return loc, nil
}

// caseOf is the zone the zone database spells in another letter case
// than name, when one of the usual spellings loads: all capitals (utc,
// est5edt), each word capitalised (asia/shanghai, america/new_york), and
// so with its short words in capitals (us/eastern). Go lists no zone
// names (the database may be embedded), so the spellings are tried.
func caseOf(name string) (string, bool) {
	words := func(short bool) string {
		b := []rune(strings.ToLower(name))
		start := true
		for i, r := range b {
			if start {
				b[i] = unicode.ToUpper(r)
			}
			start = !unicode.IsLetter(r)
		}
		s := string(b)
		if short {
			parts := strings.Split(s, "/")
			for i, p := range parts {
				if len(p) <= 3 {
					parts[i] = strings.ToUpper(p)
				}
			}
			s = strings.Join(parts, "/")
		}
		return s
	}
	for _, z := range []string{strings.ToUpper(name), words(false), words(true)} {
		if z == name || z == "Local" {
			continue
		}
		if _, err := time.LoadLocation(z); err == nil {
			return z, true
		}
	}
	return "", false
}

// CheckTimezone is Parse's check of timezone alone: a caller that checks
// an expression and its zone apart reports a mistake in each.
func CheckTimezone(timezone string) error {
	_, err := loadLocation(timezone)
	return err
}
