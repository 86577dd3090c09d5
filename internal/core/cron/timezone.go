package cron

import (
	"fmt"
	"time"
)

const timezoneHint = `give an IANA zone name such as "Europe/Berlin", "America/New_York" or "UTC"`

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
		return nil, (&ParseError{Input: name, Part: "timezone",
			Problem: fmt.Sprintf("unknown IANA timezone %q", name),
			Hint:    timezoneHint + " (names are case-sensitive)"}).because(RefusalTimezoneUnknown, "value", name)
	}
	return loc, nil
}

// CheckTimezone is Parse's check of timezone alone: a caller that checks
// an expression and its zone apart reports a mistake in each.
func CheckTimezone(timezone string) error {
	_, err := loadLocation(timezone)
	return err
}
