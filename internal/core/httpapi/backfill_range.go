package httpapi

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
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

// wholeOutOfRange reports whether a number a whole-number field refused
// (1e30, 99999999999999999999) is a whole number, only too large for the
// field: encoding/json refuses it as it refuses 1.5, and "not a whole
// number" would be false of it.
func wholeOutOfRange(e *json.UnmarshalTypeError) bool {
	n, ok := strings.CutPrefix(e.Value, "number ")
	if !ok || !isInteger(e.Type.Kind()) {
		return false
	}
	f, _, err := big.ParseFloat(n, 10, 0, big.ToNearestEven)
	return err == nil && f.IsInt()
}

// isInteger reports whether k is one of Go's integer kinds.
func isInteger(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Uint64
}

// bodyRange is the range a whole-number field of a body takes: a
// backfill's instants and its max their own, any other field an int64's.
func bodyRange(field string) (lo, hi int64) {
	switch field {
	case "fromMs", "toMs":
		return minInstantMs, maxInstantMs
	case "max":
		return 1, schedule.MaxBackfill
	}
	return math.MinInt64, math.MaxInt64
}
