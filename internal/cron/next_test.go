package cron

import (
	"math"
	"testing"
	"time"
)

func TestNextReturnsFalseQuicklyWhenNothingMatches(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, expr, zone string }{
		{"February 30th", "0 0 30 2 *", "UTC"},
		{"February 30th in a DST zone", "0 0 30 2 *", "America/New_York"},
		{"31st of 30-day months", "0 0 31 4,6,9,11 *", "Europe/Berlin"},
		{"six fields, February 31st", "0 0 0 31 2 *", "Australia/Lord_Howe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, tt.expr, tt.zone)
			// A generous bound: each call takes microseconds; looping forever or
			// stepping second by second through five years would not.
			began := time.Now()
			for i := range 100 {
				if got, ok := s.Next(int64(i) * 86_400_000 * 17); ok || got != 0 {
					t.Fatalf("Next = (%d, %v), want (0, false)", got, ok)
				}
			}
			if elapsed := time.Since(began); elapsed > time.Second {
				t.Errorf("100 calls took %v", elapsed)
			}
		})
	}
}

func TestNextRoundsSubSecondAfterUp(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "* * * * * *", "UTC")
	tests := []struct{ after, want int64 }{
		{1000, 2000},
		{1001, 2000},
		{1999, 2000},
		{0, 1000},
		{-1, 0},
		{-1000, 0},
		{-1001, -1000},
	}
	for _, tt := range tests {
		if got, ok := s.Next(tt.after); !ok || got != tt.want {
			t.Errorf("Next(%d) = (%d, %v), want %d", tt.after, got, ok, tt.want)
		}
	}
}

func TestNextStaysWithinYears1To9999(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "0 0 1 1 *", "Europe/Berlin")
	tests := []struct {
		name  string
		after int64
		want  string
	}{
		// Berlin used local mean time (+00:53:28) then, so wall January 1st of
		// year 1 had begun before the first supported instant.
		{"far past clamps to year 1", math.MinInt64, "0001-12-31T23:06:32Z"},
		{"last occurrence in range", utcMs(t, "9999-06-01T00:00:00Z"), "9999-12-31T23:00:00Z"},
		{"nothing after the last instant of year 9999", utcMs(t, "9999-12-31T23:00:00Z"), "none"},
		{"far future", math.MaxInt64, "none"},
	}
	for _, tt := range tests {
		got := nextN(s, tt.after, 1)[0]
		if got != tt.want {
			t.Errorf("%s: Next(%d) = %s, want %s", tt.name, tt.after, got, tt.want)
		}
	}
}

func BenchmarkNext(b *testing.B) {
	cases := []struct{ name, expr, zone string }{
		{"every 5 minutes", "*/5 * * * *", "Europe/Berlin"},
		{"weekdays 09:30", "30 9 * * MON-FRI", "America/New_York"},
		{"never matches", "0 0 30 2 *", "America/New_York"},
	}
	after := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for _, c := range cases {
		s := mustParse(b, c.expr, c.zone)
		b.Run(c.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				s.Next(after + int64(i%100_000)*60_000)
			}
		})
	}
}
