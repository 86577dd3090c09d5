package apitoken

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A lifetime out of range is refused as --expires takes it (3651d, 30s),
// not in Go's duration format (87624h0m0s), before anything is stored.
func TestAnExpiryOutOfRangeIsSaidAsTheFlagTakesIt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   time.Duration
		want string
	}{
		{3651 * 24 * time.Hour, "expiry 3651d is outside 1m–3650d"},
		{30 * time.Second, "expiry 30s is outside 1m–3650d"},
		{(3650*24 + 1) * time.Hour, "expiry 87601h is outside 1m–3650d"},
	} {
		_, _, err := Create(t.Context(), nil, "id", "ci", Read, c.in)
		if !qlerror.Is(err, qlerror.Invalid) || err.Error() != c.want {
			t.Errorf("create with expiry %s: %v; want %q", c.in, err, c.want)
		}
	}
}
