// Package plural writes a count with its noun in the right number, so that
// a message never says "1 characters".
package plural

import "strconv"

// Count is n followed by one when n is 1 and by many otherwise:
// Count(1, "character", "characters") is "1 character".
func Count[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(int64(n), 10) + " " + many
}
