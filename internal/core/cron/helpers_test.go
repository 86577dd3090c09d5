package cron

import (
	"testing"
	"time"
)

func mustParse(tb testing.TB, expr, zone string) *Schedule {
	tb.Helper()
	s, err := Parse(expr, zone)
	if err != nil {
		tb.Fatalf("Parse(%q, %q): %v", expr, zone, err)
	}
	return s
}

func utcMs(tb testing.TB, rfc3339 string) int64 {
	tb.Helper()
	t, err := time.Parse(time.RFC3339Nano, rfc3339)
	if err != nil {
		tb.Fatal(err)
	}
	return t.UnixMilli()
}

func utcString(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(time.RFC3339)
}

// nextN chains Next n times from afterMs and renders the results in UTC.
func nextN(s *Schedule, afterMs int64, n int) []string {
	var out []string
	for range n {
		next, ok := s.Next(afterMs)
		if !ok {
			return append(out, "none")
		}
		out = append(out, utcString(next))
		afterMs = next
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
