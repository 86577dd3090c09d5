package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/view"
)

// unservedDir is the data directory no server serves, when the backend is
// a single-node database read with --data-dir and none does; "" otherwise,
// a failed look included (the listing then reads as the database has it).
func unservedDir(cmd *cobra.Command, b *Backend) string {
	if b.api != nil || b.Unattended == nil {
		return ""
	}
	u, err := b.Unattended(cmd.Context(), "")
	if err != nil || !u.NoServer {
		return ""
	}
	return u.DataDir
}

// overdue reports whether t's next occurrence is due at or before nowMs
// and nothing but a scheduler's decision stands between it and its Run
// (or its ledger entry): the trigger is enabled, not paused, archived or
// ended.
func overdue(t view.Trigger, nowMs int64) bool {
	if !t.Enabled || t.Paused || t.Archived || t.Ended || t.NextFireAtMs == nil || t.NextFireUnknown != "" {
		return false
	}
	due := t.NextFireAtMs
	if t.NextDueAtMs != nil {
		due = t.NextDueAtMs
	}
	return *due <= nowMs
}

// unservedTriggers is the note under a listing read from a data directory
// no server serves that holds an overdue trigger: its NEXT FIRE lies in
// the past because nothing decides it, not because it was missed for good.
func unservedTriggers(cmd *cobra.Command, dataDir string) string {
	return fmt.Sprintf("no server is running on this data directory (%s), so nothing decides its triggers: a NEXT FIRE in the past is due "+
		"and waits; at the next `%s` each is admitted or passed over as its misfire policy says", dataDir, suggest(cmd, "serve", "--data-dir", dataDir))
}

// overdueWhy says why an overdue occurrence has not been decided: no
// server runs on dataDir (unserved), or else a scheduler's next round
// decides it.
func overdueWhy(cmd *cobra.Command, unserved string) string {
	if unserved == "" {
		return "a running scheduler's next round decides it"
	}
	return fmt.Sprintf("no server is running on this data directory (%s): `%s` decides it", unserved, suggest(cmd, "serve", "--data-dir", unserved))
}
