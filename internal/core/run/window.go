package run

import (
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// WindowLayouts are the forms of a listing window's bound without a zone:
// a date and time to the minute or to the second, what the console's
// datetime-local fields send. The console reads them in the viewer's
// zone; the API and the CLI, which print times in UTC, in UTC.
var WindowLayouts = []string{"2006-01-02T15:04", "2006-01-02T15:04:05"}

// WindowBoundIn reads v, a bound of a listing's time window, as a time in
// loc; 0 for "" (no bound); ok is false when v is in no WindowLayouts form.
func WindowBoundIn(v string, loc *time.Location) (ms int64, ok bool) {
	if v == "" {
		return 0, true
	}
	for _, layout := range WindowLayouts {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return t.UnixMilli(), true
		}
	}
	return 0, false
}

// WindowBound reads the API's and the CLI's bound field of a listing's
// time window (from or to): a WindowLayouts form in UTC, or a time with
// its offset as RFC 3339 writes it (what the CLI prints and the API
// answers, 2026-11-30T08:00:00.000Z, or 2026-11-30T16:00:00+08:00); 0
// for "".
func WindowBound(field, v string) (int64, error) {
	if ms, ok := WindowBoundIn(v, time.UTC); ok {
		return ms, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UnixMilli(), nil
	}
	return 0, qlerror.New(qlerror.Invalid, "%s %q is not a date and time: give 2026-11-30T08:00 (UTC) or one with its offset, 2026-11-30T16:00:00+08:00", field, v).
		Because(RefusalListNotATime, "field", field)
}
