package console

import (
	"net/http"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/view"
)

// tzCookie holds the viewer's IANA zone. The console's script sets it from
// the browser (Intl), so it is readable by script and carries nothing
// secret.
const tzCookie = "ql_tz"

// localLayouts are what a datetime-local field sends, with and without
// seconds.
var localLayouts = []string{"2006-01-02T15:04", "2006-01-02T15:04:05"}

// viewerZone is the viewer's zone: ?tz=, then the tz cookie, when it names
// a zone this server knows; "" (shown as UTC) otherwise.
func viewerZone(r *http.Request) string {
	if z := r.URL.Query().Get("tz"); knownZone(z) {
		return z
	}
	if ck, err := r.Cookie(tzCookie); err == nil && knownZone(ck.Value) {
		return ck.Value
	}
	return ""
}

func knownZone(z string) bool {
	if z == "" || z == "Local" || len(z) > 64 {
		return false
	}
	_, err := time.LoadLocation(z)
	return err == nil
}

// zoneOf is the location of a zone viewerZone returned.
func zoneOf(z string) *time.Location {
	if loc, err := time.LoadLocation(z); z != "" && err == nil {
		return loc
	}
	return time.UTC
}

// parseLocal reads a datetime-local field's value as a time in zone; 0
// for an empty field.
func parseLocal(field, v, zone string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	for _, layout := range localLayouts {
		if t, err := time.ParseInLocation(layout, v, zoneOf(zone)); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, qlerror.New(qlerror.Invalid, "%s %q is not a date and time like 2026-11-30T08:00", field, v).Because(refusalNotATime)
}

// upcoming are a trigger's next view.NextFireCount fire times at nowMs
// with their due times, as `ql triggers show` lists them
// (view.UpcomingFires): none while it is paused or disabled or its project
// is archived (none of them would run), or when its cron no longer parses
// (its page says so through the store's own checks).
func upcoming(t schedule.TriggerStatus, nowMs int64) []view.FireTime {
	if t.Paused || !t.Enabled || t.Archived {
		return nil
	}
	next, err := view.UpcomingFires(t, nowMs, view.NextFireCount)
	if err != nil {
		return nil
	}
	return next
}
