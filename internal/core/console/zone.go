package console

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/view"
)

// tzCookie holds the viewer's IANA zone. The console's script sets it from
// the browser (Intl), so it is readable by script and carries nothing
// secret.
const tzCookie = "ql_tz"

// tzPrevCookie holds the zone the pages were shown in when the script last
// set tzCookie: should this server not know the browser's new zone, the
// pages stay in that one rather than fall back to UTC.
const tzPrevCookie = "ql_tz_prev"

// maxZoneName bounds a zone name: the longest in the zone database is
// about half of it, and a refused one is quoted on every page.
const maxZoneName = 64

// viewerZone is the viewer's zone ("" for UTC): viewerZones.
func viewerZone(r *http.Request) string {
	z, _ := viewerZones(r)
	return z
}

// viewerZones are the viewer's zone, the first of ?tz=, the tz cookie and
// the zone before it that this server knows ("" for UTC when none is),
// and refused: the first of ?tz= and the cookie given that it does not
// know, which the page names ("" when none), so that a mistyped or too new
// zone is not silently replaced.
func viewerZones(r *http.Request) (zone, refused string) {
	given := []string{r.URL.Query().Get("tz"), "", ""}
	if ck, err := r.Cookie(tzCookie); err == nil {
		given[1] = ck.Value
	}
	if ck, err := r.Cookie(tzPrevCookie); err == nil {
		given[2] = ck.Value
	}
	for i, z := range given {
		switch {
		case z == "":
		case knownZone(z):
			return z, refused
		case refused == "" && i < 2:
			refused = z
		}
	}
	return "", refused
}

// zoneRefusal says, in language l, that this server knows no zone z, or
// for "Local" which names it takes, and that the times are shown in zone
// ("" for UTC), as they were.
func zoneRefusal(l, z, zone string) string {
	if r := []rune(z); len(r) > maxZoneName {
		z = string(r[:maxZoneName]) + "…"
	}
	if zone == "" {
		zone = "UTC"
	}
	pe := (*cron.ParseError)(nil)
	if errors.As(cron.CheckTimezone(z), &pe) && pe.Reason == cron.RefusalTimezoneCase {
		return fmt.Sprintf(tr(l, "zone.case"), z, pe.Params["suggest"], zone)
	}
	if pe != nil && pe.Reason == cron.RefusalTimezoneLocal {
		// Go's "Local" is the server process's zone, which has no name
		// to show and is often UTC in a container: the console, like a
		// trigger, never implies it, so it says which names it takes.
		return fmt.Sprintf(tr(l, "zone.local"), zone)
	}
	return fmt.Sprintf(tr(l, "zone.unknown"), z, zone)
}

func knownZone(z string) bool {
	if z == "" || z == "Local" || len(z) > maxZoneName {
		return false
	}
	_, err := time.LoadLocation(z)
	return err == nil
}

// zoneName names the zone a page's times are in: zone, or UTC for "".
//
// A trigger's pages show every time in the viewer's zone, as the rest of
// the console does, and name the trigger's zone only as the one its cron
// is read in. Its timeline's Runs then read as the runs list and a Run's
// page show them, so a Run is matched with its occurrence by eye; in the
// trigger's zone they would not, and the console's other pages cannot
// follow a zone that differs from trigger to trigger. The next fires
// follow suit: a page in two zones asks the reader which one a time is in.
func zoneName(zone string) string {
	if zone == "" {
		return "UTC"
	}
	return zone
}

// zoneOf is the location of zone, UTC when it is empty or unknown.
func zoneOf(z string) *time.Location {
	if loc, err := time.LoadLocation(z); z != "" && err == nil {
		return loc
	}
	return time.UTC
}

// parseLocal reads a datetime-local field's value as a time in zone; 0
// for an empty field.
func parseLocal(field, v, zone string) (int64, error) {
	if ms, ok := run.WindowBoundIn(v, zoneOf(zone)); ok {
		return ms, nil
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
