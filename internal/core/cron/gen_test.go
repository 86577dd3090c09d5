package cron

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// randomExpr builds a valid expression from the whole grammar. hourHint, when
// in 0..23, is included in fixed hour fields so occurrences land near a
// transition of interest.
func randomExpr(rng *rand.Rand, hourHint int) string {
	var fields []string
	if rng.IntN(3) == 0 {
		fields = append(fields, randomField(rng, 0, 59, nil))
	}
	fields = append(fields, randomField(rng, 0, 59, nil))
	if rng.IntN(2) == 0 {
		fields = append(fields, "*")
	} else {
		h := randomField(rng, 0, 23, nil)
		if hourHint >= 0 && rng.IntN(3) > 0 {
			h = fmt.Sprintf("%d,%d", hourHint, rng.IntN(24))
		}
		fields = append(fields, h)
	}
	fields = append(fields,
		randomField(rng, 1, 31, nil),
		randomField(rng, 1, 12, []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}),
		randomField(rng, 0, 6, []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}))
	return strings.Join(fields, " ")
}

// randomField favours "*" (most real expressions use it) and otherwise picks
// one of the forms the grammar allows.
func randomField(rng *rand.Rand, lo, hi int, names []string) string {
	value := func() string {
		v := lo + rng.IntN(hi-lo+1)
		if names != nil && rng.IntN(2) == 0 {
			return names[v-lo]
		}
		return fmt.Sprint(v)
	}
	switch rng.IntN(9) {
	case 0, 1, 2:
		return "*"
	case 3:
		return value()
	case 4:
		a := lo + rng.IntN(hi-lo+1)
		b := a + rng.IntN(hi-a+1)
		return fmt.Sprintf("%d-%d", a, b)
	case 5:
		return fmt.Sprintf("*/%d", 1+rng.IntN(hi-lo+1))
	case 6:
		a := lo + rng.IntN(hi-lo+1)
		return fmt.Sprintf("%d-%d/%d", a, a+rng.IntN(hi-a+1), 1+rng.IntN(7))
	case 7:
		return fmt.Sprintf("%d/%d", lo+rng.IntN(hi-lo+1), 1+rng.IntN(10))
	default:
		items := []string{value(), value()}
		if rng.IntN(2) == 0 {
			items = append(items, value())
		}
		return strings.Join(items, ",")
	}
}
