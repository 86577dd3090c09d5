package cron

import "testing"

// Transitions used below (2026, from tzdata):
//
//	America/New_York   Mar 8 07:00Z 02:00 EST→03:00 EDT   Nov 1 06:00Z 02:00 EDT→01:00 EST
//	Europe/Berlin      Mar 29 01:00Z 02:00 CET→03:00 CEST  Oct 25 01:00Z 03:00 CEST→02:00 CET
//	Australia/Sydney   Apr 4 16:00Z 03:00 AEDT→02:00 AEST  Oct 3 16:00Z 02:00 AEST→03:00 AEDT
//	Australia/Lord_Howe Apr 4 15:00Z 02:00→01:30 (+11→+10:30)  Oct 3 15:30Z 02:00→02:30
//	America/Santiago   Apr 5 03:00Z 00:00 -03→23:00 -04 (previous day)  Sep 6 04:00Z 00:00 -04→01:00 -03
//	America/Havana     Mar 8 05:00Z 00:00 CST→01:00 CDT
func TestNextFollowsTheDSTRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		zone  string
		expr  string
		after string
		want  []string
	}{
		// New York, spring forward: 02:00-02:59 does not exist.
		{"fixed hour in the gap fires once at the end of the gap", "America/New_York", "30 2 * * *", "2026-03-07T12:00:00Z",
			[]string{"2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"}},
		{"gap firing is found when after is just before the transition", "America/New_York", "30 2 * * *", "2026-03-08T06:59:59.999Z",
			[]string{"2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"}},
		{"gap firing is not repeated when after is the transition", "America/New_York", "30 2 * * *", "2026-03-08T07:00:00Z",
			[]string{"2026-03-09T06:30:00Z"}},
		{"every minute of the missing hour collapses into one firing", "America/New_York", "* 2 * * *", "2026-03-08T06:00:00Z",
			[]string{"2026-03-08T07:00:00Z", "2026-03-09T06:00:00Z"}},
		{"gap firing and a real 03:00 match fire once", "America/New_York", "0 2,3 * * *", "2026-03-08T06:00:00Z",
			[]string{"2026-03-08T07:00:00Z", "2026-03-09T06:00:00Z"}},
		{"hour star skips the missing 02:30", "America/New_York", "30 * * * *", "2026-03-08T05:00:00Z",
			[]string{"2026-03-08T05:30:00Z", "2026-03-08T06:30:00Z", "2026-03-08T07:30:00Z"}},
		{"seconds-level hour star runs on real time through the gap", "America/New_York", "*/20 * * * * *", "2026-03-08T06:59:30Z",
			[]string{"2026-03-08T06:59:40Z", "2026-03-08T07:00:00Z", "2026-03-08T07:00:20Z"}},
		{"seconds-level fixed hour in the gap fires once", "America/New_York", "*/20 * 2 * * *", "2026-03-08T06:59:30Z",
			[]string{"2026-03-08T07:00:00Z", "2026-03-09T06:00:00Z", "2026-03-09T06:00:20Z"}},
		// New York, fall back: 01:00-01:59 happens twice.
		{"fixed hour in the overlap fires only at the first occurrence", "America/New_York", "30 1 * * *", "2026-10-31T12:00:00Z",
			[]string{"2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"}},
		{"after in the second pass does not fire the repeated time", "America/New_York", "30 1 * * *", "2026-11-01T06:10:00Z",
			[]string{"2026-11-02T06:30:00Z"}},
		{"every minute of the repeated hour fires once", "America/New_York", "* 1 * * *", "2026-11-01T05:58:00Z",
			[]string{"2026-11-01T05:59:00Z", "2026-11-02T06:00:00Z"}},
		{"seconds-level fixed hour in the overlap fires once", "America/New_York", "*/20 59 1 * * *", "2026-11-01T05:58:00Z",
			[]string{"2026-11-01T05:59:00Z", "2026-11-01T05:59:20Z", "2026-11-01T05:59:40Z", "2026-11-02T06:59:00Z"}},
		{"hour star fires at 01:30 EDT and 01:30 EST", "America/New_York", "30 * * * *", "2026-11-01T04:00:00Z",
			[]string{"2026-11-01T04:30:00Z", "2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", "2026-11-01T07:30:00Z"}},
		{"hour star step of one counts as star", "America/New_York", "30 */1 * * *", "2026-11-01T05:00:00Z",
			[]string{"2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z"}},
		// Berlin: same rule, transitions at other wall times.
		{"Berlin gap", "Europe/Berlin", "30 2 * * *", "2026-03-28T12:00:00Z",
			[]string{"2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"}},
		{"Berlin gap on a weekday-restricted expression", "Europe/Berlin", "15 2 * * SUN", "2026-03-28T12:00:00Z",
			[]string{"2026-03-29T01:00:00Z", "2026-04-05T00:15:00Z"}},
		{"Berlin overlap fixed hour", "Europe/Berlin", "30 2 * * *", "2026-10-24T12:00:00Z",
			[]string{"2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"}},
		{"Berlin overlap hour star", "Europe/Berlin", "30 * * * *", "2026-10-25T00:00:00Z",
			[]string{"2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z", "2026-10-25T02:30:00Z"}},
		// Sydney: southern hemisphere, gap in October, overlap in April.
		{"Sydney gap in October", "Australia/Sydney", "30 2 * * *", "2026-10-03T00:00:00Z",
			[]string{"2026-10-03T16:00:00Z", "2026-10-04T15:30:00Z"}},
		{"Sydney overlap in April fixed hour", "Australia/Sydney", "30 2 * * *", "2026-04-04T00:00:00Z",
			[]string{"2026-04-04T15:30:00Z", "2026-04-05T16:30:00Z"}},
		{"Sydney overlap in April hour star", "Australia/Sydney", "30 * * * *", "2026-04-04T15:00:00Z",
			[]string{"2026-04-04T15:30:00Z", "2026-04-04T16:30:00Z", "2026-04-04T17:30:00Z"}},
		// Lord Howe: a 30-minute shift.
		{"half-hour gap", "Australia/Lord_Howe", "15 2 * * *", "2026-10-03T12:00:00Z",
			[]string{"2026-10-03T15:30:00Z", "2026-10-04T15:15:00Z"}},
		{"half-hour overlap fixed hour", "Australia/Lord_Howe", "45 1 * * *", "2026-04-04T12:00:00Z",
			[]string{"2026-04-04T14:45:00Z", "2026-04-05T15:15:00Z"}},
		{"half-hour overlap hour star", "Australia/Lord_Howe", "45 * * * *", "2026-04-04T14:00:00Z",
			[]string{"2026-04-04T14:45:00Z", "2026-04-04T15:15:00Z", "2026-04-04T16:15:00Z"}},
		// Gaps and overlaps at midnight.
		{"Havana midnight gap", "America/Havana", "0 0 * * *", "2026-03-07T00:00:00Z",
			[]string{"2026-03-07T05:00:00Z", "2026-03-08T05:00:00Z", "2026-03-09T04:00:00Z"}},
		{"Santiago midnight gap", "America/Santiago", "0 0 * * *", "2026-09-05T00:00:00Z",
			[]string{"2026-09-05T04:00:00Z", "2026-09-06T04:00:00Z", "2026-09-07T03:00:00Z"}},
		{"Santiago gap on the only matching day of the year", "America/Santiago", "0 0 6 9 *", "2026-01-01T00:00:00Z",
			[]string{"2026-09-06T04:00:00Z"}},
		{"Santiago overlap across midnight: midnight happens once", "America/Santiago", "0 0 * * *", "2026-04-03T12:00:00Z",
			[]string{"2026-04-04T03:00:00Z", "2026-04-05T04:00:00Z", "2026-04-06T04:00:00Z"}},
		{"Santiago overlap across midnight: 23:30 fires once", "America/Santiago", "30 23 * * *", "2026-04-04T12:00:00Z",
			[]string{"2026-04-05T02:30:00Z", "2026-04-06T03:30:00Z"}},
		// Zones without DST.
		{"Shanghai has no transition", "Asia/Shanghai", "30 2 * * *", "2026-03-08T00:00:00Z",
			[]string{"2026-03-08T18:30:00Z", "2026-03-09T18:30:00Z"}},
		{"UTC has no transition", "UTC", "30 2 * * *", "2026-03-08T00:00:00Z",
			[]string{"2026-03-08T02:30:00Z", "2026-03-09T02:30:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, tt.expr, tt.zone)
			if got := nextN(s, utcMs(t, tt.after), len(tt.want)); !equalStrings(got, tt.want) {
				t.Errorf("%q in %s after %s\n got %v\nwant %v", tt.expr, tt.zone, tt.after, got, tt.want)
			}
		})
	}
}

func TestNextIsDailyIn24HoursWithoutDST(t *testing.T) {
	t.Parallel()
	for _, zone := range []string{"UTC", "Asia/Shanghai"} {
		s := mustParse(t, "30 2 * * *", zone)
		prev, ok := s.Next(utcMs(t, "2026-01-01T00:00:00Z"))
		if !ok {
			t.Fatalf("%s: no first occurrence", zone)
		}
		for range 400 {
			next, nextOK := s.Next(prev)
			if !nextOK || next-prev != 24*3600*1000 {
				t.Fatalf("%s: after %s got %s (ok=%v), want exactly one day later", zone, utcString(prev), utcString(next), nextOK)
			}
			prev = next
		}
	}
}

// TestEveryHourFieldFollowsRealTimeHoweverWritten checks that an hour field
// naming all 24 hours follows elapsed time through a gap and a repeat whether
// it reads "*", "*/1", "0/1", "0-23" or a list: the set, not the spelling,
// decides the schedule.
func TestEveryHourFieldFollowsRealTimeHoweverWritten(t *testing.T) {
	t.Parallel()
	spring := []string{"2026-03-08T05:30:00Z", "2026-03-08T06:30:00Z", "2026-03-08T07:30:00Z", "2026-03-08T08:30:00Z"}
	fall := []string{"2026-11-01T04:30:00Z", "2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", "2026-11-01T07:30:00Z"}
	for _, hour := range []string{"*", "?", "*/1", "0/1", "0-23", "0-23/1", "0-11,12-23", "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23"} {
		t.Run(hour, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, "30 "+hour+" * * *", "America/New_York")
			if got := nextN(s, utcMs(t, "2026-03-08T05:00:00Z"), len(spring)); !equalStrings(got, spring) {
				t.Errorf("spring forward: got %v, want %v (00:30 EST, 01:30 EST, 03:30 EDT, 04:30 EDT: no 02:30, no extra firing at 03:00)", got, spring)
			}
			if got := nextN(s, utcMs(t, "2026-11-01T04:00:00Z"), len(fall)); !equalStrings(got, fall) {
				t.Errorf("fall back: got %v, want %v (01:30 EDT and 01:30 EST both fire)", got, fall)
			}
		})
	}
}

// TestHourFieldMissingAnHourStaysFixedHour checks the other side of the
// line: a field that leaves out even one hour keeps the fixed-hour rule.
func TestHourFieldMissingAnHourStaysFixedHour(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "30 0-22 * * *", "America/New_York")
	spring := []string{"2026-03-08T05:30:00Z", "2026-03-08T06:30:00Z", "2026-03-08T07:00:00Z", "2026-03-08T07:30:00Z"}
	if got := nextN(s, utcMs(t, "2026-03-08T05:00:00Z"), len(spring)); !equalStrings(got, spring) {
		t.Errorf("spring forward: got %v, want %v (02:30 fires once at 03:00 EDT)", got, spring)
	}
	fall := []string{"2026-11-01T04:30:00Z", "2026-11-01T05:30:00Z", "2026-11-01T07:30:00Z"}
	if got := nextN(s, utcMs(t, "2026-11-01T04:00:00Z"), len(fall)); !equalStrings(got, fall) {
		t.Errorf("fall back: got %v, want %v (01:30 fires once)", got, fall)
	}
}
