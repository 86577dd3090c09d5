package cron

import (
	"strings"
	"testing"
)

// A schedule says whether it fires on days matching either day field —
// both restricted, "*/2" and "1-31" among the restricting spellings — and
// where Vixie cron, reading a field starting with "*" as unrestricted,
// would have required both; which times it fires does not change.
func TestDaysSaysWhenEitherDayFieldFiresAndWhereVixieCronWouldRequireBoth(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		expr              string
		either, vixieBoth bool
	}{
		{"0 0 * * *", false, false},
		{"0 0 1,15 * *", false, false},
		{"0 0 * * MON", false, false},
		{"0 0 ? * 1", false, false},
		{"0 0 */1 * 1", false, false},
		{"0 0 *,5 * 1", false, false},
		{"0 0 1,15 * MON", true, false},
		{"0 0 1-31 * 1", true, false},
		{"0 0 */2 * 1", true, true},
		{"0 0 1 * */2", true, true},
		{"30 0 0 */3 * MON-FRI", true, true},
	} {
		s, err := Parse(c.expr, "UTC")
		if err != nil {
			t.Fatal(err)
		}
		d := s.Days()
		if d.Either != c.either || d.VixieBoth != c.vixieBoth {
			t.Errorf("%q: either %v, Vixie both %v; want %v, %v", c.expr, d.Either, d.VixieBoth, c.either, c.vixieBoth)
		}
		note := d.Note()
		switch {
		case !c.either && note != "":
			t.Errorf("%q: note %q, want none", c.expr, note)
		case c.either && !strings.Contains(note, "days matching EITHER"):
			t.Errorf("%q: note %q, want it to say days matching either fire", c.expr, note)
		case c.vixieBoth != strings.Contains(note, "Vixie cron"):
			t.Errorf("%q: note %q, want Vixie cron named %v", c.expr, note, c.vixieBoth)
		case c.vixieBoth && !strings.Contains(note, "No expression here requires both"):
			t.Errorf("%q: note %q, want it to say no expression requires both", c.expr, note)
		}
	}
	// The rule said is the one applied: "*/2" with Monday fires on a
	// Monday that is an even day, as on odd days that are no Monday.
	s, err := Parse("0 0 */2 * 1", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	const monday14Dec2026 = 1_797_206_400_000 // 2026-12-14T00:00:00Z, a Monday
	if next, ok := s.Next(monday14Dec2026 - 1); !ok || next != monday14Dec2026 {
		t.Errorf("next after Sunday 13 December 2026: %d, want Monday 14th (%d)", next, monday14Dec2026)
	}
}
