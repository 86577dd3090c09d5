package cron

import (
	"fmt"
	"math"
	"testing"
	"time"
)

func TestNextReturnsFalseWithoutSearchingWhenNothingMatches(t *testing.T) {
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
			// Known at parse time: no calendar date matches, so Next answers
			// without walking any horizon (the speed is in BenchmarkNext).
			if s.horizon != 0 {
				t.Fatalf("an expression no date matches would search %d s", s.horizon)
			}
			for i := range 100 {
				if got, ok := s.Next(int64(i) * 86_400_000 * 17); ok || got != 0 {
					t.Fatalf("Next = (%d, %v), want (0, false)", got, ok)
				}
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

// February 29th skips 2100 (a century year that is not a leap year), so
// its next occurrence after 2096 is in 2104, eight years on.
func TestNextFindsTheLeapDayAcrossACenturyYear(t *testing.T) {
	t.Parallel()
	tests := []struct{ expr, zone, after, want string }{
		{"0 0 29 2 *", "UTC", "2096-03-01T00:00:00Z", "2104-02-29T00:00:00Z"},
		{"0 0 29 2 *", "UTC", "1896-03-01T00:00:00Z", "1904-02-29T00:00:00Z"},
		{"30 2 29 2 *", "America/New_York", "2096-02-29T12:00:00Z", "2104-02-29T07:30:00Z"},
		{"0 0 0 29,30 2 ?", "Europe/Berlin", "2096-03-01T00:00:00Z", "2104-02-28T23:00:00Z"},
		{"0 0 29 2 *", "UTC", "2400-03-01T00:00:00Z", "2404-02-29T00:00:00Z"},
	}
	for _, tt := range tests {
		s := mustParse(t, tt.expr, tt.zone)
		if got := nextN(s, utcMs(t, tt.after), 1)[0]; got != tt.want {
			t.Errorf("%q in %s after %s: %s, want %s", tt.expr, tt.zone, tt.after, got, tt.want)
		}
	}
}

// Every month/day pair is found exactly when the calendar has it, at the
// date the time package computes, from starting points around century
// years; impossible pairs (February 30th, April 31st) are known without a
// search.
func TestNextFindsEveryExistingMonthDay(t *testing.T) {
	t.Parallel()
	starts := []time.Time{
		time.Date(2096, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2099, 12, 31, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 6, 15, 0, 0, 0, 0, time.UTC),
	}
	for m := time.January; m <= time.December; m++ {
		for d := 1; d <= 31; d++ {
			s := mustParse(t, fmt.Sprintf("0 0 %d %d *", d, m), "UTC")
			exists := time.Date(2000, m, d, 0, 0, 0, 0, time.UTC).Day() == d
			if !exists {
				if s.horizon != 0 {
					t.Errorf("%d-%02d never exists but Next would search %d s", m, d, s.horizon)
				}
				if _, ok := s.Next(starts[0].UnixMilli()); ok {
					t.Errorf("%d-%02d never exists but Next found it", m, d)
				}
				continue
			}
			for _, from := range starts {
				want := from
				for want.Month() != m || want.Day() != d || !want.After(from) {
					want = want.AddDate(0, 0, 1)
				}
				if got := nextN(s, from.UnixMilli(), 1)[0]; got != want.Format(time.RFC3339) {
					t.Errorf("%d-%02d after %s: %s, want %s", m, d, from.Format(time.DateOnly), got, want.Format(time.RFC3339))
				}
			}
		}
	}
}

// Beyond 2037 zones are extended by their yearly rule, where the time
// package ends a leap year's last span a day early; the walk must still
// cross into the next year.
func TestNextCrossesLeapYearEndsOfRuleExtendedZones(t *testing.T) {
	t.Parallel()
	tests := []struct{ expr, zone, after, want string }{
		{"0 0 1 1 *", "America/New_York", "2040-06-01T00:00:00Z", "2041-01-01T05:00:00Z"},
		{"0 12 * * *", "America/New_York", "2040-12-30T18:00:00Z", "2040-12-31T17:00:00Z"},
		{"0 0 1 1 *", "Australia/Sydney", "2096-06-01T00:00:00Z", "2096-12-31T13:00:00Z"},
	}
	for _, tt := range tests {
		s := mustParse(t, tt.expr, tt.zone)
		if got := nextN(s, utcMs(t, tt.after), 1)[0]; got != tt.want {
			t.Errorf("%q in %s after %s: %s, want %s", tt.expr, tt.zone, tt.after, got, tt.want)
		}
	}
}
