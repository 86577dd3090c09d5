package sqlitestore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

func pageCount(t *testing.T, e *env) int64 {
	t.Helper()
	var n int64
	if err := e.raw.QueryRow(`PRAGMA page_count`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A pass that deleted Runs gives their pages back: the file shrinks.
func TestRetentionShrinksTheFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := e.fixture()
	var autoVacuum int
	if err := e.raw.QueryRow(`PRAGMA auto_vacuum`).Scan(&autoVacuum); err != nil || autoVacuum != autoVacuumIncremental {
		t.Fatalf("auto_vacuum of a new file: %d, %v; want incremental (2)", autoVacuum, err)
	}
	d := e.defs(t, "alpha", everyMinute)
	e.take(t, 1)
	template := e.admit(t, d.Trigger.TriggerID)
	if _, err := f.SeedFinished(t.Context(), template, 2000, e.clock.NowMs()-40*retention.Day.Milliseconds(), 0); err != nil {
		t.Fatal(err)
	}
	before := pageCount(t, e)
	rep, err := retention.Pass(t.Context(), f.Retention, retention.Policy{RunsAge: 30 * retention.Day}, retention.Options{BatchSize: 500, Share: 1, Budget: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	after := pageCount(t, e)
	if rep.Total.Runs != 2000 || rep.FreedBytes <= 0 || after >= before {
		t.Fatalf("pass deleted %d runs and freed %d bytes; pages %d → %d; want 2000 runs deleted and the file smaller", rep.Total.Runs, rep.FreedBytes, before, after)
	}
}

// A file created before retention existed (auto_vacuum off) is switched
// to incremental auto-vacuum when it is next migrated.
func TestMigrateSwitchesAnOldFileToIncrementalVacuum(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if _, err := e.raw.Exec(`PRAGMA auto_vacuum = NONE; VACUUM`); err != nil {
		t.Fatal(err)
	}
	var mode int
	if err := e.raw.QueryRow(`PRAGMA auto_vacuum`).Scan(&mode); err != nil || mode != 0 {
		t.Fatalf("auto_vacuum after switching it off: %d, %v", mode, err)
	}
	s, err := Open(t.Context(), Config{Path: e.path, NowMs: e.clock.NowMs})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	// A fresh connection: an open one keeps the mode it read at open.
	if err := openRaw(t, e.path).QueryRow(`PRAGMA auto_vacuum`).Scan(&mode); err != nil || mode != autoVacuumIncremental {
		t.Fatalf("auto_vacuum after migrating: %d, %v; want incremental (2)", mode, err)
	}
}

// BenchmarkAdmissionUnderRetention: admission rate with retention deleting
// a backlog of old finished Runs vs without, in the same run
// (QL_BENCH_RETENTION_BACKLOG sizes the backlog).
func BenchmarkAdmissionUnderRetention(b *testing.B) {
	storetest.BenchAdmissionUnderRetention(b, newEnv(b).fixture(), storetest.RetentionPacing{Name: "paced", Options: RetentionOptions})
}

// The log cap counts the log a running command is still writing at its
// file's current size (its log_bytes is written only when it ends) and
// never deletes it: finished logs make room for it, oldest first, and the
// dry run counts the same.
func TestTheLogCapCountsARunningCommandsLogAndNeverDeletesIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := e.fixture()
	d := e.defs(t, "alpha", everyMinute)
	e.take(t, 1)
	template := e.admit(t, d.Trigger.TriggerID)
	var finished []string
	for _, age := range []time.Duration{3, 2, 1} {
		runs, err := f.SeedFinished(t.Context(), template, 1, e.clock.NowMs()-(age*retention.Day).Milliseconds(), 100)
		if err != nil {
			t.Fatal(err)
		}
		finished = append(finished, runs...)
	}
	var attempt string
	if err := e.raw.QueryRow(`SELECT id FROM attempts WHERE run_id = ?`, template).Scan(&attempt); err != nil {
		t.Fatal(err)
	}
	running := filepath.Join(e.logDir(), attempt+".log")
	if err := e.tamper(t.Context(), `UPDATE runs SET state = 'running' WHERE id = ?1;
		UPDATE attempts SET state = 'running', owner = 'test', log_path = ?2, started_at_ms = ?3 WHERE run_id = ?1`, template, running, e.clock.NowMs()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(running, []byte(strings.Repeat("r", 150)), 0o600); err != nil {
		t.Fatal(err)
	}
	// Three finished logs and a running one, each a block on disk: a cap
	// of two blocks frees two, the two oldest finished logs.
	const block = retention.LogBlockBytes
	policy := retention.Policy{LogBytes: 2 * block}
	est, err := f.Retention.RetentionEstimate(t.Context(), policy)
	if err != nil || est[retention.KindLogBytes].LogBytes != 2*block {
		t.Fatalf("the dry run counts %+v, %v; want two blocks", est, err)
	}
	rep, err := retention.Pass(t.Context(), f.Retention, policy, retention.Options{BatchSize: 2, Share: 1, Budget: time.Minute})
	if err != nil || rep.Total != (retention.Deleted{Logs: 2, LogBytes: 2 * block}) {
		t.Fatalf("the pass deleted %+v, %v; want the two oldest finished logs", rep.Total, err)
	}
	for i, id := range finished {
		var path string
		if err := e.raw.QueryRow(`SELECT log_path FROM attempts WHERE run_id = ?`, id).Scan(&path); err != nil {
			t.Fatal(err)
		}
		if kept := path != ""; kept != (i == 2) {
			t.Errorf("finished log %d (oldest first) kept %v", i, kept)
		}
	}
	if fi, err := os.Stat(running); err != nil || fi.Size() != 150 {
		t.Fatalf("the running command's log: %v; want it untouched", err)
	}
}

// The log cap counts what the logs take on disk, not the bytes they hold:
// a log of one line takes a whole block (and an inode), so two thousand of
// them fill a disk that the sum of their bytes says is nearly empty. Each
// counts its bytes in whole blocks, at least one, so the cap also bounds
// the number of log files; the dry run counts the same.
func TestTheLogCapCountsWhatLogsTakeOnDisk(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := e.fixture()
	d := e.defs(t, "alpha", everyMinute)
	e.take(t, 1)
	template := e.admit(t, d.Trigger.TriggerID)
	const block = retention.LogBlockBytes
	var oneLine []string
	for age := range 12 {
		runs, err := f.SeedFinished(t.Context(), template, 1, e.clock.NowMs()-int64(12-age)*time.Hour.Milliseconds(), 40)
		if err != nil {
			t.Fatal(err)
		}
		oneLine = append(oneLine, runs...)
	}
	// Two blocks and one byte: three blocks.
	newest, err := f.SeedFinished(t.Context(), template, 1, e.clock.NowMs(), 2*block+1)
	if err != nil {
		t.Fatal(err)
	}
	// 12 one-line logs (480 bytes) and 8193 bytes take 15 blocks; a cap
	// of 7 blocks leaves the newest log and four one-line logs.
	policy := retention.Policy{LogBytes: 7 * block}
	est, err := f.Retention.RetentionEstimate(t.Context(), policy)
	if err != nil || est[retention.KindLogBytes].LogBytes != 8*block {
		t.Fatalf("the dry run counts %+v, %v; want 8 blocks over the cap", est, err)
	}
	rep, err := retention.Pass(t.Context(), f.Retention, policy, retention.Options{BatchSize: 4, Share: 1, Budget: time.Minute})
	if err != nil || rep.Total != (retention.Deleted{Logs: 8, LogBytes: 8 * block}) {
		t.Fatalf("the pass deleted %+v, %v; want the 8 oldest one-line logs, a block each", rep.Total, err)
	}
	for i, id := range append(oneLine, newest...) {
		has, err := f.HasLog(t.Context(), attemptOf(t, e, id))
		if err != nil || has != (i >= 8) {
			t.Errorf("log %d (oldest first) kept: %v, %v; want %v", i, has, err, i >= 8)
		}
	}
}

// An attempt recovery finds lost (its command died with its server and
// never reported) records what its log file holds, the line recovery ends
// it with included, so the log cap counts it and deletes it among the
// oldest, as a finished attempt's.
func TestAnAttemptFoundLostByRecoveryRecordsItsLogsSizeForTheCap(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newEnv(t)
	f := e.fixture()
	lost, _ := e.crashedWithLog(t, strings.Repeat("x", 100))
	if _, _, err := e.store.AttemptsLose(ctx, "crashed"); err != nil {
		t.Fatal(err)
	}
	// Its size counts the line recovery ends the log with.
	held := int64(100 + len(process.LostLine(true)))
	got, err := e.store.RunGet(ctx, lost)
	if err != nil || len(got.Attempts) != 1 || got.Attempts[0].LogBytes != held {
		t.Fatalf("the lost run: %+v, %v; want its attempt holding its log's %d bytes", got, err, held)
	}
	e.clock.Advance(retention.Day)
	finished, err := f.SeedFinished(ctx, lost, 1, e.clock.NowMs(), 100)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := retention.Pass(ctx, f.Retention, retention.Policy{LogBytes: retention.LogBlockBytes}, retention.Options{Share: 1, Budget: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total != (retention.Deleted{Logs: 1, LogBytes: retention.LogBlockBytes}) {
		t.Fatalf("a cap of one block over the lost attempt's log and a newer one deleted %+v, want the lost attempt's block", rep.Total)
	}
	for _, c := range []struct {
		run  string
		want bool
	}{{lost, false}, {finished[0], true}} {
		has, err := f.HasLog(ctx, attemptOf(t, e, c.run))
		if err != nil || has != c.want {
			t.Errorf("run %s has a log: %v, %v; want %v", c.run, has, err, c.want)
		}
	}
}

func attemptOf(t *testing.T, e *env, runID string) string {
	t.Helper()
	got, err := e.store.RunGet(t.Context(), runID)
	if err != nil || len(got.Attempts) != 1 {
		t.Fatalf("run %s: %+v, %v", runID, got, err)
	}
	return got.Attempts[0].ID
}

// A notifications batch reads only the old delivered and dead rows: one
// search of notification_outbox_state per state, bounded by the cutoff,
// never a scan of the outbox, so its cost follows the batch and not the
// rows kept (pending or young).
func TestTheNotificationsBatchSearchesTheStateIndexUpToItsCutoff(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plan := e.queryPlan(t, qRetentionNotifications, 1, 16)
	joined := strings.Join(plan, "\n")
	if strings.Contains(joined, "SCAN notification_outbox") ||
		!strings.Contains(joined, "SEARCH notification_outbox USING INDEX notification_outbox_state (state=? AND created_at_ms<?)") {
		t.Fatalf("the notifications batch's plan:\n%s\nwant a search of notification_outbox_state by state and cutoff, no scan", joined)
	}
}

// jam makes an attempt's log file impossible to remove, as an immutable
// file or a read-only directory does for its owner (and root): a
// non-empty directory in its place.
func jam(t *testing.T, e *env, attempt string) string {
	t.Helper()
	path := filepath.Join(e.logDir(), attempt+".log")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// A log file that cannot be removed is reported once per pass, names its
// file, its attempt and Run and the cause, and stays named for removal
// (never a file left behind with nothing naming it, never an attempt
// naming a file that is gone): the pass goes on with the Runs after it
// and the logs rule, each later pass tries it again first, and once the
// file can go the next pass removes it.
func TestALogThatCannotBeRemovedStaysNamedForRemovalAndThePassGoesOn(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newEnv(t)
	f := e.fixture()
	d := e.defs(t, "alpha", everyMinute)
	e.take(t, 1)
	template := e.admit(t, d.Trigger.TriggerID)
	old, err := f.SeedFinished(ctx, template, 4, e.clock.NowMs()-(40*retention.Day).Milliseconds(), 100)
	if err != nil {
		t.Fatal(err)
	}
	aged, err := f.SeedFinished(ctx, template, 2, e.clock.NowMs()-(10*retention.Day).Milliseconds(), 100)
	if err != nil {
		t.Fatal(err)
	}
	stuckRun, stuckLog := attemptOf(t, e, old[0]), attemptOf(t, e, aged[0])
	paths := map[string]string{stuckRun: jam(t, e, stuckRun), stuckLog: jam(t, e, stuckLog)}
	runOf := map[string]string{stuckRun: old[0], stuckLog: aged[0]}

	policy := retention.Policy{RunsAge: 30 * retention.Day, LogsAge: 7 * retention.Day}
	opts := retention.Options{BatchSize: 2, Share: 1, Budget: time.Minute}
	for pass := 1; pass <= 2; pass++ {
		rep, err := retention.Pass(ctx, f.Retention, policy, opts)
		if err != nil {
			t.Fatalf("pass %d with two logs it cannot remove failed: %v", pass, err)
		}
		if pass == 1 && (rep.ByKind[retention.KindRuns].Runs != 4 || rep.ByKind[retention.KindLogs].Logs != 2) {
			t.Fatalf("the pass deleted %+v; want the 4 old Runs and both aged logs", rep.ByKind)
		}
		if len(rep.Kept) != 2 || len(rep.Cut) != 0 {
			t.Fatalf("pass %d kept %v (rules cut short: %v); want the two stuck logs, each once", pass, rep.Kept, rep.Cut)
		}
		for _, k := range rep.Kept {
			msg := k.String()
			if k.Path != paths[k.Attempt] || k.Run != runOf[k.Attempt] || !strings.Contains(msg, paths[k.Attempt]) || !strings.Contains(msg, k.Run) ||
				!strings.Contains(msg, "directory not empty") {
				t.Errorf("pass %d kept %q; want its path, its Run and the cause", pass, msg)
			}
		}
		if n := namedForRemoval(t, e); n != 2 {
			t.Fatalf("after pass %d, %d files are named for removal; want the two stuck ones", pass, n)
		}
		logsAccountedFor(t, e)
	}
	for _, id := range old {
		if _, err := e.store.RunGet(ctx, id); !qlerror.Is(err, qlerror.NotFound) {
			t.Errorf("old Run %s after the pass: %v; want it deleted", id, err)
		}
	}

	for _, p := range paths {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := retention.Pass(ctx, f.Retention, policy, opts)
	if err != nil || len(rep.Kept) != 0 || rep.Total != (retention.Deleted{}) {
		t.Fatalf("the next pass, the files removable: %+v, kept %v, %v; want them removed and nothing else deleted", rep.ByKind, rep.Kept, err)
	}
	for _, p := range paths {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s after the next pass: %v; want it removed", p, err)
		}
	}
	if n := namedForRemoval(t, e); n != 0 {
		t.Fatalf("%d files named for removal after they went; want none", n)
	}
}

// A log directory nothing can be removed from costs a bounded pass: a
// rule stops after KeptPerRule files it could not remove and the rules
// after it still run; the next pass, finding that many of the files named
// for removal still there, leaves every rule that removes logs to a later
// pass instead of naming more files that cannot go.
func TestALogDirectoryNothingCanBeRemovedFromCostsABoundedPass(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newEnv(t)
	f := e.fixture()
	d := e.defs(t, "alpha", everyMinute)
	e.take(t, 1)
	template := e.admit(t, d.Trigger.TriggerID)
	stuck, err := f.SeedFinished(ctx, template, retention.KeptPerRule+6, e.clock.NowMs()-(40*retention.Day).Milliseconds(), 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range stuck {
		jam(t, e, attemptOf(t, e, id))
	}
	behind, err := f.SeedFinished(ctx, template, 2, e.clock.NowMs()-(35*retention.Day).Milliseconds(), 10)
	if err != nil {
		t.Fatal(err)
	}
	policy := retention.Policy{RunsAge: 30 * retention.Day, LogsAge: 7 * retention.Day}
	opts := retention.Options{BatchSize: 16, Share: 1, Budget: time.Minute}
	rep, err := retention.Pass(ctx, f.Retention, policy, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cut) != 1 || rep.Cut[0] != retention.KindRuns || rep.ByKind[retention.KindRuns].Runs != retention.KeptPerRule {
		t.Fatalf("the runs rule: cut %v, deleted %+v; want it stopped after %d stuck logs", rep.Cut, rep.ByKind[retention.KindRuns], retention.KeptPerRule)
	}
	if len(rep.Kept) != len(stuck) || rep.ByKind[retention.KindLogs].Logs != int64(len(stuck)-retention.KeptPerRule+len(behind)) {
		t.Fatalf("kept %d logs and the logs rule took %d; want every stuck log once (%d) and the logs rule run over the rest",
			len(rep.Kept), rep.ByKind[retention.KindLogs].Logs, len(stuck))
	}
	named := namedForRemoval(t, e)
	rep, err = retention.Pass(ctx, f.Retention, policy, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Kept) != retention.KeptPerRule || len(rep.Cut) != 2 || rep.Total != (retention.Deleted{}) {
		t.Fatalf("the next pass kept %d, cut %v, deleted %+v; want it to stop trying after %d and leave the runs and logs rules", len(rep.Kept), rep.Cut, rep.Total, retention.KeptPerRule)
	}
	if n := namedForRemoval(t, e); n != named {
		t.Fatalf("%d files named for removal after the next pass, %d before; want no more", n, named)
	}
	logsAccountedFor(t, e)
}

// BenchmarkRetentionEstimate: the dry run over a history of ended Runs
// (QL_BENCH_ESTIMATE_HISTORY sizes it).
func BenchmarkRetentionEstimate(b *testing.B) {
	storetest.BenchRetentionEstimate(b, newEnv(b).fixture())
}
