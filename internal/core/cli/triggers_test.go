package cli

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// `ql triggers list` says a paused trigger is paused where its next fire
// would be: its cursor is a time that passes without a Run.
func TestTheTriggerListSaysPausedInsteadOfANextFire(t *testing.T) {
	at := int64(1_767_225_600_000)
	for _, c := range []struct {
		t    schedule.TriggerStatus
		want string
	}{
		{schedule.TriggerStatus{NextFireAtMs: &at, NextDueAtMs: &at}, fmtMs(&at)},
		{schedule.TriggerStatus{Paused: true, NextFireAtMs: &at, NextDueAtMs: &at}, "paused"},
		{schedule.TriggerStatus{Ended: true}, "ended"},
		{schedule.TriggerStatus{Archived: true, Paused: true}, "archived"},
	} {
		if got := nextFire(c.t); got != c.want {
			t.Errorf("next fire of %+v: %q, want %q", c.t, got, c.want)
		}
	}
}
