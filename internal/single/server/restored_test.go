package server

import (
	"io"
	"log/slog"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// startLogged starts a server on dir and stops it, returning what it
// logged.
func startLogged(t *testing.T, dir string) string {
	t.Helper()
	var logs lockedBuffer
	srv, err := Start(t.Context(), Config{DataDir: dir, Cadence: time.Hour, StopTimeout: testStopTimeout, Concurrency: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	return logs.String()
}

// The first start on a backup's copy says it was restored from a backup
// taken at the snapshot's time, and what that brings back (occurrences
// that may run again, credentials to revoke again); the next start, and a
// start on the original, say nothing of it.
func TestTheFirstStartOnABackupSaysOnceWhenItsSnapshotWasTaken(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	copied := filepath.Join(t.TempDir(), "copy")
	before := time.Now().UnixMilli()
	if _, err := Backup(t.Context(), LayoutOf(dir).DB, copied, io.Discard); err != nil {
		t.Fatal(err)
	}
	after := time.Now().UnixMilli()
	first := startLogged(t, copied)
	var line string
	for l := range strings.SplitSeq(first, "\n") {
		if strings.Contains(l, "code="+CodeRestoredFromBackup) {
			line = l
		}
	}
	var ms string
	if m := regexp.MustCompile(`snapshot_ms=(\d+)`).FindStringSubmatch(line); m != nil {
		ms = m[1]
	}
	snapshot, err := strconv.ParseInt(ms, 10, 64)
	if err != nil || snapshot < before || snapshot > after || !strings.Contains(line, "level=WARN") ||
		!strings.Contains(line, "may run a second time") || !strings.Contains(line, "revoked") {
		t.Fatalf("the first start on the copy logged %q; want a warning naming the snapshot's time (%d–%d), the occurrences that may run again and the credentials to revoke again", line, before, after)
	}
	if again := startLogged(t, copied); strings.Contains(again, CodeRestoredFromBackup) {
		t.Fatalf("the second start on the copy logged %q; want it quiet about the restore", again)
	}
	if original := startLogged(t, dir); strings.Contains(original, CodeRestoredFromBackup) {
		t.Fatalf("a start on the original logged %q; want nothing of a restore", original)
	}
}

// A copy restored with --after-restore skip-missed passes over, as
// restored, every occurrence the copy says was missed up to its start and
// admits none of them, where the default catches them up as the trigger's
// misfire policy says (fire_once: one Run, the rest collapsed).
func TestARestoreToldToSkipMissedPassesThemOverAsRestoredWhereTheDefaultCatchesUp(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	tg := publishEveryMinuteTick(t, dir, "restore")
	first := time.UnixMilli(tg.CreatedAtMs).UTC().Truncate(time.Minute).Add(time.Minute).UnixMilli()
	minute := time.Minute.Milliseconds()
	at := func(dir string, nowMs int64, after AfterRestore) *Server {
		t.Helper()
		srv, err := Start(t.Context(), Config{DataDir: dir, NowMs: func() int64 { return nowMs }, Cadence: 250 * time.Millisecond, StopTimeout: testStopTimeout,
			ClockWaitSet: true, Concurrency: 1, AfterRestore: after, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		stopAtCleanup(t, srv)
		return srv
	}
	srv := at(dir, first+1_000, "")
	db := observer(t, dir)
	waitFor(t, "the first occurrence admitted", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM trigger_schedules WHERE trigger_id = ? AND next_fire_at_ms = ?`, tg.TriggerID, first+minute) == 1
	})
	if err := srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	skipping, catching := filepath.Join(t.TempDir(), "skip"), filepath.Join(t.TempDir(), "catch")
	for _, copied := range []string{skipping, catching} {
		if _, err := Backup(t.Context(), LayoutOf(dir).DB, copied, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	later := first + 10*minute + 1_000

	skipped := at(skipping, later, SkipMissed)
	sdb := observer(t, skipping)
	if n := count(t, sdb, `SELECT count(*) FROM occurrence_ledger WHERE trigger_id = ? AND reason = ? AND first_scheduled_at_ms = ? AND last_scheduled_at_ms = ? AND occurrence_count = 10`,
		tg.TriggerID, string(schedule.PassRestored), first+minute, first+10*minute); n != 1 {
		t.Fatalf("%d ledger entries passing over the 10 missed occurrences as restored once the copy started; want 1", n)
	}
	if n := count(t, sdb, `SELECT count(*) FROM trigger_schedules WHERE trigger_id = ? AND next_fire_at_ms = ?`, tg.TriggerID, first+11*minute); n != 1 {
		t.Fatal("the cursor is not at the first occurrence after the start")
	}
	if err := skipped.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := count(t, sdb, `SELECT count(*) FROM runs WHERE trigger_id = ?`, tg.TriggerID); n != 1 {
		t.Fatalf("%d Runs in the copy that skipped what was missed; want 1, the one admitted before the backup", n)
	}

	at(catching, later, "")
	cdb := observer(t, catching)
	waitFor(t, "the missed occurrences caught up by the default", 30*time.Second, func() bool {
		return count(t, cdb, `SELECT count(*) FROM runs WHERE trigger_id = ? AND scheduled_for_ms = ?`, tg.TriggerID, first+minute) == 1 &&
			count(t, cdb, `SELECT count(*) FROM occurrence_ledger WHERE trigger_id = ? AND reason = ?`, tg.TriggerID, string(schedule.PassCollapsed)) == 1
	})
	if n := count(t, cdb, `SELECT count(*) FROM occurrence_ledger WHERE reason = ?`, string(schedule.PassRestored)); n != 0 {
		t.Fatalf("%d restored ledger entries in the copy started by default; want none", n)
	}
}
