package server

import (
	"context"
	"github.com/qinglong/qinglong/internal/core/plural"
	"time"
)

// AfterRestore is what the first start on a backup's copy does with the
// occurrences the copy says were missed (--after-restore).
type AfterRestore string

const (
	// CatchUpMissed leaves them to each trigger's misfire policy, as after
	// any outage: the default, since the server cannot tell the
	// occurrences the old server ran after the snapshot from those nobody
	// ran (a restore after a disk failed, days later, wants its missed
	// work caught up as a restart would).
	CatchUpMissed AfterRestore = "catch-up"
	// SkipMissed passes them over, recorded with reason restored, and
	// runs only what falls due from now: for an operator who knows the old
	// server ran on after the snapshot and would rather miss an
	// occurrence than run one twice.
	SkipMissed AfterRestore = "skip-missed"
)

// CodeRestoredFromBackup is the diagnostic code of the warning the first
// start on a backup's copy logs.
const CodeRestoredFromBackup = "serve.restored_from_backup"

// sayRestored warns, at the first start on a backup's copy, what a restore
// brings back: the copy cannot know what the old server did after its
// snapshot, so the occurrences it admitted since may be admitted again
// (as the triggers' misfire policies catch up what the copy says was
// missed, unless --after-restore skip-missed passed them over), and the
// credentials revoked, disabled or changed since are valid again. The
// mark is forgotten as it is read: the next start is quiet.
func (s *Server) sayRestored(ctx context.Context) error {
	skip := s.cfg.AfterRestore == SkipMissed
	snapshotMs, ok, passed, err := s.store.RestoredBackupTake(ctx, skip)
	if err != nil || !ok {
		return err
	}
	snapshot := time.UnixMilli(snapshotMs).UTC().Format(time.RFC3339)
	missed := "occurrences between then and the old server's end may run a second time, as the triggers' misfire policies catch up what the copy says was missed " +
		"(start the copy with --after-restore skip-missed to pass them over instead)"
	if skip {
		missed = "the occurrences the copy says were missed, which the old server may have run after it, were passed over (reason restored, `" +
			s.command("triggers show NAME") + "`) on " + plural.Count(passed, "trigger", "triggers") + ", and only what falls due from now runs"
	}
	s.cfg.Logger.Warn("this database was restored from a backup taken at "+snapshot+": "+missed+
		"; and every API token revoked, console user disabled and password changed since then is valid again: "+
		"revoke, disable and change them again (`"+s.command("tokens list")+"`, `"+s.command("users list")+"`)",
		"code", CodeRestoredFromBackup, "snapshot", snapshot, "snapshot_ms", snapshotMs, "after_restore", string(s.cfg.AfterRestore), "triggers_passed_over", passed)
	return nil
}
