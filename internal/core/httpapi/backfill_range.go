package httpapi

import (
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// The instants a backfill's fromMs and toMs may be: those --from and --to
// take (RFC 3339, years 0000 to 9999). Past them the schedule would clamp
// the window silently (firstMs 0 for a far past fromMs) rather than
// consider the range asked for.
var (
	minInstantMs = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	maxInstantMs = time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC).UnixMilli()
)

// checkInstant refuses field's value ms outside minInstantMs–maxInstantMs,
// naming the range.
func checkInstant(field string, ms int64) error {
	if ms >= minInstantMs && ms <= maxInstantMs {
		return nil
	}
	return qlerror.New(qlerror.Invalid, "%q %d is outside %d (0000-01-01T00:00:00Z) … %d (9999-12-31T23:59:59.999Z): give an instant in epoch milliseconds within them",
		field, ms, minInstantMs, maxInstantMs).Because(validate.RefusalOutOfRange, "field", field, "value", ms, "min", minInstantMs, "max", maxInstantMs)
}
