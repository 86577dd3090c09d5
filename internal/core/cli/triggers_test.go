package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
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

// `ql triggers show` of a paused trigger says how many occurrences fell
// due since the pause, which its ledger records only at resume, rather
// than that every occurrence so far got its run.
func TestTriggersShowOfAPausedTriggerCountsTheOccurrencesDueSinceThePause(t *testing.T) {
	t.Parallel()
	pausedAt := int64(1_767_225_600_000) // 2026-01-01T00:00:00Z
	d := schedule.TriggerDetail{
		TriggerStatus: schedule.TriggerStatus{TriggerID: "t", Enabled: true, Paused: true,
			Cron: trigger.Cron{Expression: "0 * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}},
		PausedAtMs: &pausedAt, NowMs: pausedAt + 5*time.Hour.Milliseconds() + 1,
	}
	v, err := view.NewTriggerDetail(d, nil, "", view.MaxLedgerShown)
	if err != nil {
		t.Fatal(err)
	}
	want := view.DueWhilePaused{Count: 6, FirstMs: pausedAt, LastMs: pausedAt + 5*time.Hour.Milliseconds()}
	if v.DueWhilePaused == nil || *v.DueWhilePaused != want {
		t.Fatalf("due while paused %+v, want %+v", v.DueWhilePaused, want)
	}
	var out bytes.Buffer
	cmd := &cobra.Command{}
	cmd.SetOut(&out)
	if err := printTriggerDetail(cmd, v, Unattended{}); err != nil {
		t.Fatal(err)
	}
	if text := out.String(); strings.Contains(text, "every occurrence so far got its run") ||
		!strings.Contains(text, "paused: 6 occurrences fell due since the pause") || !strings.Contains(text, "when the trigger is resumed") {
		t.Fatalf("triggers show of a paused trigger:\n%s\nwant the occurrences due since the pause counted", text)
	}
	d.Paused = false
	if v, err = view.NewTriggerDetail(d, nil, "", view.MaxLedgerShown); err != nil || v.DueWhilePaused != nil {
		t.Fatalf("a trigger not paused: due while paused %+v, %v; want none", v.DueWhilePaused, err)
	}
}

// `ql triggers show` keeps a ledger entry as it was recorded and says
// beside it how many of its occurrences a backfill gave a Run since.
func TestTriggersShowSaysHowManyOfALedgerEntryWereBackfilledSince(t *testing.T) {
	t.Parallel()
	at := int64(1_767_225_600_000)
	v := view.TriggerDetail{Ledger: []view.LedgerEntry{
		{Reason: "paused", FirstMs: at, LastMs: at + 2000, Count: 3, Backfilled: 2, TriggerRevision: 1, RecordedAtMs: at + 3000},
		{Reason: "misfire_skipped", FirstMs: at - 9000, LastMs: at - 8000, Count: 2, TriggerRevision: 1, RecordedAtMs: at - 7000},
	}}
	var out bytes.Buffer
	cmd := &cobra.Command{}
	cmd.SetOut(&out)
	if err := printTriggerDetail(cmd, v, Unattended{}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, "paused (2 occurrences backfilled since)") || strings.Count(text, "backfilled since") != 1 {
		t.Fatalf("triggers show:\n%s\nwant the paused entry, and only it, to say 2 occurrences were backfilled since", text)
	}
}
