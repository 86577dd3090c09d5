package cron

import (
	"errors"
	"strings"
	"testing"
)

func TestParseAcceptsEveryFieldFeature(t *testing.T) {
	t.Parallel()
	// 2026-01-01 is a Thursday.
	const from = "2026-01-01T00:00:00Z"
	tests := []struct {
		name string
		expr string
		want []string
	}{
		{"list", "5,10 * * * *", []string{"2026-01-01T00:05:00Z", "2026-01-01T00:10:00Z", "2026-01-01T01:05:00Z"}},
		{"range", "10-12 * * * *", []string{"2026-01-01T00:10:00Z", "2026-01-01T00:11:00Z", "2026-01-01T00:12:00Z", "2026-01-01T01:10:00Z"}},
		{"star step", "*/20 * * * *", []string{"2026-01-01T00:20:00Z", "2026-01-01T00:40:00Z", "2026-01-01T01:00:00Z"}},
		{"range step", "10-30/10 * * * *", []string{"2026-01-01T00:10:00Z", "2026-01-01T00:20:00Z", "2026-01-01T00:30:00Z", "2026-01-01T01:10:00Z"}},
		{"start step runs to the field maximum", "50/5 * * * *", []string{"2026-01-01T00:50:00Z", "2026-01-01T00:55:00Z", "2026-01-01T01:50:00Z"}},
		{"hour list with range", "0 1,22-23 * * *", []string{"2026-01-01T01:00:00Z", "2026-01-01T22:00:00Z", "2026-01-01T23:00:00Z", "2026-01-02T01:00:00Z"}},
		{"month names any case", "0 0 1 JAN,jul *", []string{"2026-07-01T00:00:00Z", "2027-01-01T00:00:00Z"}},
		{"month name range", "0 0 1 nov-Dec *", []string{"2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", "2027-11-01T00:00:00Z"}},
		{"weekday name range", "0 9 * * MON-FRI", []string{"2026-01-01T09:00:00Z", "2026-01-02T09:00:00Z", "2026-01-05T09:00:00Z"}},
		{"names containing L and W are names", "0 0 * JUL WED", []string{"2026-07-01T00:00:00Z", "2026-07-08T00:00:00Z"}},
		{"question mark means any", "0 0 ? * sun", []string{"2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"}},
		{"numeric weekdays with 0 as Sunday", "0 12 * * 0,6", []string{"2026-01-03T12:00:00Z", "2026-01-04T12:00:00Z", "2026-01-10T12:00:00Z"}},
		{"day-of-month alone", "0 0 13 * *", []string{"2026-01-13T00:00:00Z", "2026-02-13T00:00:00Z"}},
		{"day-of-month or day-of-week when both restricted", "0 0 13 * FRI", []string{"2026-01-02T00:00:00Z", "2026-01-09T00:00:00Z", "2026-01-13T00:00:00Z", "2026-01-16T00:00:00Z"}},
		{"a stepped day-of-month is restricted, so OR applies", "0 0 */10 * MON", []string{"2026-01-05T00:00:00Z", "2026-01-11T00:00:00Z", "2026-01-12T00:00:00Z", "2026-01-19T00:00:00Z", "2026-01-21T00:00:00Z"}},
		{"question mark day-of-month means AND with weekday", "0 0 ? * MON", []string{"2026-01-05T00:00:00Z", "2026-01-12T00:00:00Z"}},
		{"31st skips short months", "0 0 31 * *", []string{"2026-01-31T00:00:00Z", "2026-03-31T00:00:00Z", "2026-05-31T00:00:00Z"}},
		{"leap day", "0 0 29 2 *", []string{"2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"}},
		{"last minute of the year", "59 23 31 12 *", []string{"2026-12-31T23:59:00Z", "2027-12-31T23:59:00Z"}},
		{"six fields: seconds step", "*/15 * * * * *", []string{"2026-01-01T00:00:15Z", "2026-01-01T00:00:30Z", "2026-01-01T00:00:45Z", "2026-01-01T00:01:00Z"}},
		{"six fields: fixed second", "30 0 0 * * *", []string{"2026-01-01T00:00:30Z", "2026-01-02T00:00:30Z"}},
		{"six fields: second list with names", "0,59 59 23 * DEC THU", []string{"2026-12-03T23:59:00Z", "2026-12-03T23:59:59Z", "2026-12-10T23:59:00Z"}},
		{"extra whitespace between fields", "  0   0  1 *\t*  ", []string{"2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, tt.expr, "UTC")
			if got := nextN(s, utcMs(t, from), len(tt.want)); !equalStrings(got, tt.want) {
				t.Errorf("Next chain of %q from %s\n got %v\nwant %v", tt.expr, from, got, tt.want)
			}
		})
	}
}

func TestParseKeepsExpressionAndZone(t *testing.T) {
	t.Parallel()
	s := mustParse(t, " 0 0 * * * ", "Europe/Berlin")
	if s.Expression() != " 0 0 * * * " {
		t.Errorf("Expression() = %q, want the input unchanged", s.Expression())
	}
	if s.Location().String() != "Europe/Berlin" {
		t.Errorf("Location() = %v, want Europe/Berlin", s.Location())
	}
}

func TestParseRejectsWithWhatToWriteInstead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		expr  string
		zone  string
		part  string
		wants []string // substrings the message must contain
	}{
		{"empty", "", "UTC", "expression", []string{"empty", `"*/5 * * * *"`}},
		{"blank", " \t ", "UTC", "expression", []string{"empty"}},
		{"@daily", "@daily", "UTC", "expression", []string{`"@daily"`, "not supported", `write "0 0 * * *"`}},
		{"@midnight", "@midnight", "UTC", "expression", []string{`write "0 0 * * *"`}},
		{"@hourly", "@hourly", "UTC", "expression", []string{`write "0 * * * *"`}},
		{"@weekly", "@weekly", "UTC", "expression", []string{`write "0 0 * * 0"`}},
		{"@monthly", "@monthly", "UTC", "expression", []string{`write "0 0 1 * *"`}},
		{"@yearly", "@yearly", "UTC", "expression", []string{`write "0 0 1 1 *"`}},
		{"@annually any case", "@ANNUALLY", "UTC", "expression", []string{`write "0 0 1 1 *"`}},
		{"@every", "@every 5m", "UTC", "expression", []string{"interval triggers", "not supported", `"*/5 * * * *"`}},
		{"@reboot", "@reboot", "UTC", "expression", []string{"startup triggers", "not supported"}},
		{"unknown macro", "@often", "UTC", "expression", []string{`"@often"`, "not supported", "5 fields"}},
		{"TZ prefix", "TZ=Europe/Berlin 0 0 * * *", "UTC", "expression", []string{`"TZ=Europe/Berlin"`, "not supported", `put "Europe/Berlin" in the separate timezone field`, `"0 0 * * *"`}},
		{"CRON_TZ prefix", "CRON_TZ=UTC 30 2 * * *", "UTC", "expression", []string{`"CRON_TZ=UTC"`, `"30 2 * * *"`}},
		{"too few fields", "0 0 * *", "UTC", "expression", []string{"expected 5 fields (minute hour day-of-month month day-of-week) or 6 with leading seconds, got 4"}},
		{"one field", "*", "UTC", "expression", []string{"got 1"}},
		{"year field", "0 0 12 * * ? 2026", "UTC", "expression", []string{"got 7", "year field is not supported"}},
		{"hour out of range", "0 25 * * *", "UTC", "hour", []string{`hour field "25"`, "above maximum (23)", "hour takes 0-23"}},
		{"minute out of range", "60 * * * *", "UTC", "minute", []string{`minute field "60"`, "minute takes 0-59"}},
		{"second out of range", "60 0 * * * *", "UTC", "second", []string{`second field "60"`, "second takes 0-59"}},
		{"day-of-month zero", "0 0 0 * *", "UTC", "day-of-month", []string{`day-of-month field "0"`, "below minimum (1)", "day-of-month takes 1-31"}},
		{"month out of range", "0 0 * 13 *", "UTC", "month", []string{`month field "13"`, "month takes 1-12 or JAN-DEC"}},
		{"unknown month name", "0 0 * FOO *", "UTC", "month", []string{`month field "FOO": "FOO" is not a value of this field`, "JAN-DEC"}},
		{"weekday name in month field", "0 0 * MON *", "UTC", "month", []string{`month field "MON": "MON" is not a value of this field`}},
		{"unknown weekday name", "0 0 * * MONDAY", "UTC", "day-of-week", []string{`"MONDAY" is not a value of this field`, "SUN-SAT"}},
		{"a word as a minute", "abc * * * *", "UTC", "minute", []string{`minute field "abc": "abc" is not a value of this field`, "minute takes 0-59"}},
		{"L as a minute is no last day", "L * * * *", "UTC", "minute", []string{`"L" is not a value of this field`, "minute takes 0-59"}},
		{"W as an hour is no weekday", "0 W * * *", "UTC", "hour", []string{`"W" is not a value of this field`, "hour takes 0-23"}},
		{"L closing a range of minutes", "1-L * * * *", "UTC", "minute", []string{`"L" is not a value of this field`}},
		{"Sunday as 7", "0 0 * * 7", "UTC", "day-of-week", []string{`day-of-week field "7"`, "0 = Sunday", "not 7"}},
		{"zero step", "*/0 * * * *", "UTC", "minute", []string{`minute field "*/0"`, "step"}},
		{"reversed range", "5-1 * * * *", "UTC", "minute", []string{"beyond end of range"}},
		{"too many hyphens", "1-2-3 * * * *", "UTC", "minute", []string{"too many hyphens"}},
		{"too many slashes", "*/5/5 * * * *", "UTC", "minute", []string{"too many slashes"}},
		{"empty list item", "1,,2 * * * *", "UTC", "minute", []string{"empty list item"}},
		{"list of nothing", ", * * * *", "UTC", "minute", []string{"empty list item"}},
		{"trailing comma", "0 1, * * *", "UTC", "hour", []string{"empty list item"}},
		{"star inside a range", "*-5 * * * *", "UTC", "minute", []string{`"*-5" cannot be part of a range`, `"*/step"`}},
		{"stray character", "0 0 * * 1;", "UTC", "day-of-week", []string{`unexpected character ';'`}},
		{"negative number", "0 -1 * * *", "UTC", "hour", []string{`hour field "-1"`}},
		{"hash", "0 0 * * MON#2", "UTC", "day-of-week", []string{`"#" (nth weekday of the month) is not supported`, "write explicit values"}},
		{"L in day-of-month", "0 0 L * *", "UTC", "day-of-month", []string{`"L" (last day of the month) is not supported`, "L, W and # are not in this grammar"}},
		{"L in day-of-week", "0 0 * * L", "UTC", "day-of-week", []string{`"L" (last day of the week) is not supported`}},
		{"L offset", "0 0 L-3 * *", "UTC", "day-of-month", []string{`"L" (last day of the month) is not supported`}},
		{"LW", "0 0 LW * *", "UTC", "day-of-month", []string{`"LW" (last weekday of the month) is not supported`}},
		{"nearest weekday", "0 0 15W * *", "UTC", "day-of-month", []string{`"15W" (nearest weekday) is not supported`}},
		{"last weekday of month", "0 0 * * 5L", "UTC", "day-of-week", []string{`"5L" (last given weekday) is not supported`}},
		{"lowercase l", "0 0 l * *", "UTC", "day-of-month", []string{`(last day of the month) is not supported`}},
		{"missing timezone", "0 0 * * *", "", "timezone", []string{"IANA timezone is required", "host zone is never implied", `"Europe/Berlin"`}},
		{"Local timezone", "0 0 * * *", "Local", "timezone", []string{`"Local"`, "never implied"}},
		{"unknown timezone", "0 0 * * *", "Mars/Olympus_Mons", "timezone", []string{`unknown IANA timezone "Mars/Olympus_Mons"`}},
		{"timezone names are case-sensitive", "0 0 * * *", "europe/berlin", "timezone", []string{`unknown IANA timezone "europe/berlin"`, "case-sensitive", "did you mean Europe/Berlin?"}},
		{"a zone name in small letters", "0 0 * * *", "utc", "timezone", []string{`unknown IANA timezone "utc"`, "did you mean UTC?"}},
		{"a zone name of two words in small letters", "0 0 * * *", "america/new_york", "timezone", []string{"did you mean America/New_York?"}},
		{"a zone name with a short word", "0 0 * * *", "us/eastern", "timezone", []string{"did you mean US/Eastern?"}},
		{"timezone with spaces", "0 0 * * *", " UTC", "timezone", []string{`unknown IANA timezone " UTC"`}},
		{"timezone path escape", "0 0 * * *", "../etc/passwd", "timezone", []string{"unknown IANA timezone"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Parse(tt.expr, tt.zone)
			if err == nil {
				t.Fatalf("Parse(%q, %q) = %v, want an error", tt.expr, tt.zone, s)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is %T, want *ParseError", err, err)
			}
			if pe.Part != tt.part {
				t.Errorf("Part = %q, want %q (%v)", pe.Part, tt.part, err)
			}
			if pe.Hint == "" {
				t.Errorf("no hint in %v", err)
			}
			for _, want := range tt.wants {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q\nlacks %q", err.Error(), want)
				}
			}
		})
	}
}

func TestFeaturesNamesTheUnsupportedSyntax(t *testing.T) {
	t.Parallel()
	for _, want := range []string{"6 with a leading seconds", "L, W, #", "@daily", "@every", "TZ=", "JAN-DEC", "SUN-SAT", "IANA", "a day matching EITHER fires", "Daylight saving", "fire once together"} {
		if !strings.Contains(Features, want) {
			t.Errorf("Features lacks %q", want)
		}
	}
}
