package validate

import (
	"testing"
	"time"
)

// A duration is spelled as a flag takes it, without Go's trailing zero
// units.
func TestADurationIsSpelledAsAFlagTakesIt(t *testing.T) {
	for d, want := range map[time.Duration]string{
		250 * time.Millisecond:  "250ms",
		1500 * time.Millisecond: "1.5s",
		30 * time.Second:        "30s",
		5 * time.Minute:         "5m",
		90 * time.Second:        "1m30s",
		time.Hour:               "1h",
		90 * time.Minute:        "1h30m",
		24 * time.Hour:          "24h",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}
