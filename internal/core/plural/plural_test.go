package plural

import "testing"

// One of a thing is named in the singular, any other count in the plural.
func TestOneIsSingularAndEveryOtherCountPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 characters", 1: "1 character", 2: "2 characters", 10: "10 characters"} {
		if got := Count(n, "character", "characters"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
