package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/view"
)

// unservedDir is what the backend tells of the data directory no server
// serves, when it is a single-node database read with --data-dir and none
// does (whether it was handed over included); the zero Unattended
// otherwise, a failed look included (the listing then reads as the
// database has it).
func unservedDir(cmd *cobra.Command, b *Backend) Unattended {
	if b.api != nil || b.Unattended == nil {
		return Unattended{}
	}
	u, err := b.Unattended(cmd.Context(), "")
	if err != nil || !u.NoServer {
		return Unattended{}
	}
	return u
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
// On a database handed over it names the take-back, a plain serve being
// refused there.
func unservedTriggers(cmd *cobra.Command, u Unattended) string {
	if u.HandedOver {
		return handedOver(cmd, u.DataDir, "nothing decides its triggers: a NEXT FIRE in the past is due and waits, and each is admitted or passed over as its misfire policy says only")
	}
	return fmt.Sprintf("no server is running on this data directory (%s), so nothing decides its triggers: a NEXT FIRE in the past is due "+
		"and waits; at the next `%s` each is admitted or passed over as its misfire policy says", u.DataDir, suggest(cmd, "serve", "--data-dir", u.DataDir))
}

// overdueWhy says why an overdue occurrence has not been decided: no
// server runs on the data directory (unserved; handed over, a take-back
// must come first), or else a scheduler's next round decides it.
func overdueWhy(cmd *cobra.Command, unserved Unattended) string {
	switch {
	case unserved.DataDir == "":
		return "a running scheduler's next round decides it"
	case unserved.HandedOver:
		return handedOver(cmd, unserved.DataDir, "it is decided only")
	}
	return fmt.Sprintf("no server is running on this data directory (%s): `%s` decides it", unserved.DataDir, suggest(cmd, "serve", "--data-dir", unserved.DataDir))
}
