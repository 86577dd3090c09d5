package crontab

import (
	"slices"
	"strconv"
	"strings"
)

// sundayAsZero is a day-of-week field with cron's 7 for Sunday written as
// 0, which is all QingLong takes: "7" is "0", and an item whose values
// reach 7 (a range ending in 7 or SUN, such as "1-7" or "MON-SUN", with
// or without a step) is written as the list of its days. Any other item
// stays as written, and an item it cannot read is left for the parser to
// refuse with its own words.
func sundayAsZero(field string) string {
	items := strings.Split(field, ",")
	for i, item := range items {
		if days, ok := daysOf(item); ok && slices.Contains(days, 7) {
			items[i] = listOf(days)
		}
	}
	return strings.Join(items, ",")
}

// daysOf are the day numbers item names (0–7), ok false when it is none of
// n, a-b, a-b/s, a/s with numbers or day names.
func daysOf(item string) ([]int, bool) {
	base, stepText, stepped := strings.Cut(item, "/")
	step := 1
	if stepped {
		var err error
		if step, err = strconv.Atoi(stepText); err != nil || step < 1 {
			return nil, false
		}
	}
	loText, hiText, ranged := strings.Cut(base, "-")
	lo, ok := dayNumber(loText)
	if !ok {
		return nil, false
	}
	hi := lo
	switch {
	case ranged:
		if hi, ok = dayNumber(hiText); !ok {
			return nil, false
		}
		if hi == 0 && lo > 0 {
			// "MON-SUN": a range ending on Sunday ends on its 7.
			hi = 7
		}
	case stepped:
		hi = 7
	}
	if lo > hi {
		return nil, false
	}
	var days []int
	for d := lo; d <= hi; d += step {
		days = append(days, d)
	}
	return days, true
}

var dayNames = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

func dayNumber(s string) (int, bool) {
	if i := slices.Index(dayNames, strings.ToLower(s)); i >= 0 {
		return i, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && n <= 7
}

// listOf writes days (7 as 0) as a sorted list without repeats.
func listOf(days []int) string {
	set := make([]int, 0, len(days))
	for _, d := range days {
		d %= 7
		if !slices.Contains(set, d) {
			set = append(set, d)
		}
	}
	slices.Sort(set)
	out := make([]string, len(set))
	for i, d := range set {
		out[i] = strconv.Itoa(d)
	}
	return strings.Join(out, ",")
}
