package validate

import (
	"strings"
	"testing"
	"time"
)

// Every user-given duration reads Go's units, whole days, and whole days
// followed by Go's units: a day is 1d wherever a duration is given.
func TestEveryDurationAcceptsGoUnitsAndWholeDays(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{
		"500ms": 500 * time.Millisecond,
		"30s":   30 * time.Second,
		"1h30m": 90 * time.Minute,
		"24h":   24 * time.Hour,
		"0":     0,
		"1d":    24 * time.Hour,
		"90d":   90 * 24 * time.Hour,
		"0d":    0,
		"1d12h": 36 * time.Hour,
		"2d30m": 48*time.Hour + 30*time.Minute,
		"1d0s":  24 * time.Hour,
	} {
		if got, ok := ParseDuration(in); !ok || got != want {
			t.Errorf("ParseDuration(%q) = %v, %t; want %v", in, got, ok, want)
		}
	}
}

// What cannot be read one way only is refused, not guessed at: a day of
// a fraction or a sign, days after another unit or twice, a number of no
// unit, and days past the largest duration.
func TestADurationOfNoSingleReadingIsRefused(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "d", "1.5d", "-1d", "+1d", "1d-1h", "1d+1h", "12h1d", "1d1d", "1dd", "1 d", "30", "1d 2h", "soon", "106752d", "106751d24h"} {
		if got, ok := ParseDuration(in); ok {
			t.Errorf("ParseDuration(%q) = %v; want it refused", in, got)
		}
	}
}

// A refusal of a duration names the field, the value as given and the
// range, and ends with what is accepted, days among it.
func TestARefusedDurationSaysItsRangeAndWhatIsAccepted(t *testing.T) {
	t.Parallel()
	got := NotADuration("task.timeout", "1w", time.Millisecond, 365*24*time.Hour)
	want := `task.timeout: "1w" is not a duration from 1ms to 365d: write a number with a unit (ms, s, m, h or d), e.g. 500ms, 30s, 5m, 2h, 1d or 1d12h`
	if got != want {
		t.Errorf("NotADuration = %q, want %q", got, want)
	}
}

// A refusal shows as examples only durations its own range takes: a
// range from 1m is not told "e.g. 500ms", and a range holding fewer than
// two of the examples shows its bounds.
func TestADurationRefusalsExamplesAreInsideItsRange(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lo, hi time.Duration
		want   string
	}{
		{time.Minute, 3650 * day, "5m, 2h, 1d or 1d12h"},
		{100 * time.Millisecond, 30 * time.Second, "500ms or 30s"},
		{0, time.Hour, "500ms, 30s or 5m"},
		{time.Millisecond, 365 * day, "500ms, 30s, 5m, 2h, 1d or 1d12h"},
		{time.Second, 10 * time.Second, "1s or 10s"},
	} {
		if got := NotADuration("f", "x", c.lo, c.hi); !strings.HasSuffix(got, "e.g. "+c.want) {
			t.Errorf("from %s to %s: %q; want it to end e.g. %s", DurationBound(c.lo), DurationBound(c.hi), got, c.want)
		}
	}
}
