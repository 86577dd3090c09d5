package cli

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/view"
)

// `ql triggers list` says a paused trigger is paused where its next fire
// would be: its cursor is a time that passes without a Run.
func TestTheTriggerListSaysPausedInsteadOfANextFire(t *testing.T) {
	at := int64(1_767_225_600_000)
	for _, c := range []struct {
		t    view.Trigger
		want string
	}{
		{view.Trigger{NextFireAtMs: &at, NextDueAtMs: &at}, fmtMs(&at)},
		{view.Trigger{Paused: true, NextFireAtMs: &at, NextDueAtMs: &at}, "paused"},
		{view.Trigger{Ended: true}, "ended"},
		{view.Trigger{Archived: true, Paused: true}, "archived"},
	} {
		if got := nextFire(c.t); got != c.want {
			t.Errorf("next fire of %+v: %q, want %q", c.t, got, c.want)
		}
	}
}

// `ql triggers show` spells a policy's duration as a definitions file
// takes it (1h, 90m), not as Go prints one (1h0m0s), so it can be copied
// back into the file.
func TestTriggersShowSpellsPolicyDurationsAsAFileTakesThem(t *testing.T) {
	t.Parallel()
	hour := time.Hour.Milliseconds()
	got := policiesLine(view.Trigger{Cron: view.Cron{JitterMs: (90 * time.Minute).Milliseconds(), CatchUpWindowMs: &hour}})
	if want := "jitter 1h30m  catchUpWindow 1h"; got != want {
		t.Errorf("policies %q, want %q", got, want)
	}
}
