package sqlitestore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
)

// A stop between a batch's commit and the removal of its log files (a
// crash there) loses track of no file: the batch's Runs are gone, their
// files are still on disk and each is named for removal, and no attempt
// names a file that is gone; the next pass, on a new adapter as after a
// restart, removes them before anything else, then does the rest.
func TestALogFileLeftByAStopAfterItsBatchCommittedIsRemovedByTheNextPass(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newEnv(t)
	f := e.fixture()
	d := e.defs(t, "alpha", everyMinute)
	e.take(t, 1)
	template := e.admit(t, d.Trigger.TriggerID)
	old, err := f.SeedFinished(ctx, template, 5, e.clock.NowMs()-(40*retention.Day).Milliseconds(), 100)
	if err != nil {
		t.Fatal(err)
	}
	aged, err := f.SeedFinished(ctx, template, 3, e.clock.NowMs()-(10*retention.Day).Milliseconds(), 100)
	if err != nil {
		t.Fatal(err)
	}
	var oldFiles []string
	for _, id := range old {
		oldFiles = append(oldFiles, filepath.Join(e.logDir(), attemptOf(t, e, id)+".log"))
	}
	agedAttempts := make([]string, len(aged))
	for i, id := range aged {
		agedAttempts[i] = attemptOf(t, e, id)
	}
	policy := retention.Policy{RunsAge: 30 * retention.Day, LogsAge: 7 * retention.Day}
	opts := retention.Options{BatchSize: 16, Share: 1, Budget: time.Minute}

	crashed := e.store.Retention(e.logDir())
	errStop := errors.New("stopped between the commit and the removals")
	stops := 0
	crashed.stopAfterCommit = func() error {
		stops++
		return errStop
	}
	if _, err := retention.Pass(ctx, crashed, policy, opts); !errors.Is(err, errStop) || stops != 1 {
		t.Fatalf("the pass: %v after %d stops; want it ended by the one stop after its first batch's commit", err, stops)
	}
	for _, id := range old {
		if _, err := e.store.RunGet(ctx, id); !qlerror.Is(err, qlerror.NotFound) {
			t.Fatalf("old Run %s after its batch committed: %v; want it deleted", id, err)
		}
	}
	for _, p := range oldFiles {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("the log %s after the stop: %v; want it still on disk (the stop came before its removal)", p, err)
		}
	}
	if n := namedForRemoval(t, e); n != len(old) {
		t.Fatalf("%d files named for removal after the stop; want the batch's %d", n, len(old))
	}
	logsAccountedFor(t, e)

	rep, err := retention.Pass(ctx, e.store.Retention(e.logDir()), policy, opts)
	if err != nil || len(rep.Kept) != 0 || rep.ByKind[retention.KindRuns].Runs != 0 || rep.ByKind[retention.KindLogs].Logs != int64(len(aged)) {
		t.Fatalf("the next pass: %+v, kept %v, %v; want the left files removed first, then the aged logs", rep.ByKind, rep.Kept, err)
	}
	for _, p := range oldFiles {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the log %s after the next pass: %v; want it removed", p, err)
		}
	}
	for _, a := range agedAttempts {
		if has, err := f.HasLog(ctx, a); err != nil || has {
			t.Fatalf("aged attempt %s has a log after the next pass: %v, %v; want it removed", a, has, err)
		}
	}
	if n := namedForRemoval(t, e); n != 0 {
		t.Fatalf("%d files still named for removal after the next pass; want none", n)
	}
	logsAccountedFor(t, e)
}

// A batch's log files are named for removal in its transaction, before
// they are removed: while the batch's files are being removed, every file
// on disk is named by its attempt or for removal, and every attempt's
// file is on disk.
func TestEveryLogFileIsNamedUntilItIsGoneWhileABatchRemovesThem(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newEnv(t)
	f := e.fixture()
	d := e.defs(t, "alpha", everyMinute)
	e.take(t, 1)
	template := e.admit(t, d.Trigger.TriggerID)
	if _, err := f.SeedFinished(ctx, template, 6, e.clock.NowMs()-(40*retention.Day).Milliseconds(), 100); err != nil {
		t.Fatal(err)
	}
	if _, err := f.SeedFinished(ctx, template, 4, e.clock.NowMs()-(10*retention.Day).Milliseconds(), 100); err != nil {
		t.Fatal(err)
	}
	r := e.store.Retention(e.logDir())
	checked := 0
	r.stopAfterCommit = func() error {
		checked++
		logsAccountedFor(t, e)
		return nil
	}
	rep, err := retention.Pass(ctx, r, retention.Policy{RunsAge: 30 * retention.Day, LogsAge: 7 * retention.Day},
		retention.Options{BatchSize: 2, Share: 1, Budget: time.Minute})
	if err != nil || rep.Total.Logs != 10 || checked < 5 {
		t.Fatalf("the pass: %+v, %v, checked after %d commits; want 10 logs removed, checked after every batch", rep.Total, err, checked)
	}
	logsAccountedFor(t, e)
}

// namedForRemoval counts the files named in retention_logs.
func namedForRemoval(t *testing.T, e *env) int {
	t.Helper()
	var n int
	if err := e.raw.QueryRow(`SELECT count(*) FROM retention_logs`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// logsAccountedFor fails unless every log file on disk is named by its
// attempt or for removal, and every ended attempt's log is on disk.
func logsAccountedFor(t *testing.T, e *env) {
	t.Helper()
	named := map[string]bool{}
	for _, id := range rawStrings(t, e, `SELECT id FROM attempts WHERE log_path <> '' UNION ALL SELECT attempt_id FROM retention_logs`) {
		named[id] = true
	}
	files, err := filepath.Glob(filepath.Join(e.logDir(), "*.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range files {
		if id := strings.TrimSuffix(filepath.Base(p), ".log"); !named[id] {
			t.Errorf("the log %s is on disk with nothing naming it", p)
		}
	}
	for _, id := range rawStrings(t, e, `SELECT id FROM attempts WHERE log_path <> '' AND finished_at_ms IS NOT NULL`) {
		if _, err := os.Stat(filepath.Join(e.logDir(), id+".log")); err != nil {
			t.Errorf("attempt %s names a log that is not on disk: %v", id, err)
		}
	}
}

func rawStrings(t *testing.T, e *env, q string) []string {
	t.Helper()
	rows, err := e.raw.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
