package cron

import (
	"errors"
	"testing"
	"time"
)

var fuzzZones = []string{"UTC", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "Pacific/Apia", ""}

// FuzzParse feeds arbitrary expressions: Parse must either return a
// *ParseError or a Schedule whose Next is strictly increasing (or false) and
// fast from any starting instant.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"* * * * *", "*/5 * * * *", "0 0 30 2 *", "30 2 * * *", "0 0 13 * FRI", "15 30 2 * * *",
		"0 0 * JUL WED", "@daily", "@every 5m", "TZ=UTC 0 0 * * *", "0 0 L * *", "0 0 * * MON#2",
		"1,,2 * * * *", "*-5 * * * *", "0 0 * * 7", "", "0 0 29 2 *", "59 59 23 31 12 *",
	}
	for i, seed := range seeds {
		f.Add(seed, uint8(i), int64(1_772_000_000_000)+int64(i)*7_777_777_777)
	}
	f.Fuzz(func(t *testing.T, expr string, zone uint8, afterMs int64) {
		s, err := Parse(expr, fuzzZones[int(zone)%len(fuzzZones)])
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Hint == "" {
				t.Fatalf("Parse(%q) error %v is not a *ParseError with a hint", expr, err)
			}
			return
		}
		if s.Expression() != expr {
			t.Fatalf("Expression() = %q, want %q", s.Expression(), expr)
		}
		began := time.Now()
		for range 3 {
			next, ok := s.Next(afterMs)
			if !ok {
				break
			}
			if next <= afterMs || next%1000 != 0 {
				t.Fatalf("%q: Next(%d) = %d, want a later whole second", expr, afterMs, next)
			}
			afterMs = next
		}
		if elapsed := time.Since(began); elapsed > time.Second {
			t.Fatalf("%q: three Next calls took %v", expr, elapsed)
		}
	})
}
