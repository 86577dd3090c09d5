package console

import (
	"net/url"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// last24URL is the Runs page's filter with its window opened at 24 hours
// before now, written in the viewer's zone as the window's fields take it,
// the filter's other fields kept: the shortcut beside the window. It sets
// no end, as a bound at the minute would leave out the Runs of the minute
// now.
func last24URL(f map[string]string, zone string, now time.Time) string {
	v := url.Values{}
	for k, x := range f {
		if x != "" && k != "from" && k != "to" {
			v.Set(k, x)
		}
	}
	v.Set("from", now.Add(-24*time.Hour).In(zoneOf(zone)).Format(run.WindowLayouts[0]))
	return "/runs?" + v.Encode()
}
