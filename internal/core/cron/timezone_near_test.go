package cron

import (
	"strings"
	"testing"
)

// TestAZoneWithSpacesAroundItSaysToRemoveThem: a zone that loads once the
// spaces around it are gone is refused with that said, not as unknown
// with no hint of why.
func TestAZoneWithSpacesAroundItSaysToRemoveThem(t *testing.T) {
	t.Parallel()
	err := CheckTimezone("  America/New_York")
	if err == nil || !strings.Contains(err.Error(), `zone names have no spaces around them; remove them: "America/New_York"`) {
		t.Errorf("%v; want the spaces named and the zone without them", err)
	}
}

// TestAMisspeltZoneSuggestsTheNearestNames: a zone a letter or two from
// one the database names is refused with that name suggested; one far
// from every name gets the general hint, no guess.
func TestAMisspeltZoneSuggestsTheNearestNames(t *testing.T) {
	t.Parallel()
	if len(zoneNames()) == 0 {
		t.Fatal("this host has no zone database to list names from; the test needs one (/usr/share/zoneinfo)")
	}
	for typo, want := range map[string]string{"Europe/Londn": "did you mean Europe/London?", "America/Chicgo": "did you mean America/Chicago?", "Asia/Shangai": "did you mean Asia/Shanghai?"} {
		if err := CheckTimezone(typo); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", typo, err, want)
		}
	}
	if err := CheckTimezone("Mars/Olympus"); err == nil || strings.Contains(err.Error(), "did you mean") || !strings.Contains(err.Error(), "Europe/Berlin") {
		t.Errorf("Mars/Olympus: %v; want the general hint and no guess", err)
	}
}
