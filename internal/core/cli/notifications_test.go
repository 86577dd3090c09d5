package cli

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/view"
)

// A listed finished rule's notification says how its Run ended; the other
// events say it themselves, and a skipped one has no Run.
func TestAListedFinishedNotificationSaysHowItsRunEnded(t *testing.T) {
	for _, c := range []struct {
		v    view.Notification
		want string
	}{
		{view.Notification{Event: "finished", RunState: "succeeded"}, "finished (succeeded)"},
		{view.Notification{Event: "succeeded", RunState: "succeeded"}, "succeeded"},
		{view.Notification{Event: "skipped"}, "skipped"},
	} {
		if got := eventText(c.v); got != c.want {
			t.Errorf("%+v: %q, want %q", c.v, got, c.want)
		}
	}
}
