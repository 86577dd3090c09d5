package apitoken

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// expiryForms ends an expiry's refusal: the examples of its range only
// (5m, not 500ms, for a range from 1m).
var expiryForms = "write a number with a unit (ms, s, m, h or d), e.g. 5m, 2h, 1d or 1d12h"

// A lifetime out of range is refused as --expires takes it (3651d, 30s),
// not in Go's duration format (87624h0m0s), before anything is stored.
func TestAnExpiryOutOfRangeIsSaidAsTheFlagTakesIt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   time.Duration
		want string
	}{
		{3651 * 24 * time.Hour, `expiry: "3651d" is not a duration from 1m to 3650d: ` + expiryForms},
		{30 * time.Second, `expiry: "30s" is not a duration from 1m to 3650d: ` + expiryForms},
		{(3650*24 + 1) * time.Hour, `expiry: "87601h" is not a duration from 1m to 3650d: ` + expiryForms},
	} {
		_, _, err := Create(t.Context(), nil, "tester", "id", "ci", Read, c.in)
		if !qlerror.Is(err, qlerror.Invalid) || err.Error() != c.want {
			t.Errorf("create with expiry %s: %v; want %q", c.in, err, c.want)
		}
	}
}

// An expiry is read as every user-given duration is: whole days, Go's
// units, or days then Go's units; anything else, or out of range, is
// refused in the sentence every duration is refused with.
func TestAnExpiryReadsAsEveryDurationDoes(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"90d": 90 * 24 * time.Hour, "12h": 12 * time.Hour, "1d12h": 36 * time.Hour, "3650d": MaxExpiry} {
		if got, err := ParseExpiry(in); err != nil || got != want {
			t.Errorf("ParseExpiry(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"90", "1.5d", "soon", "30s", "3651d"} {
		_, err := ParseExpiry(in)
		if want := `expiry: "` + in + `" is not a duration from 1m to 3650d: ` + expiryForms; !qlerror.Is(err, qlerror.Invalid) || err.Error() != want {
			t.Errorf("ParseExpiry(%q): %v; want %q", in, err, want)
		}
	}
}
