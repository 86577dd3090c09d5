package singlecli

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const quickFile = `project: demo
tasks:
  - name: quick
    script: echo hello
triggers:
  - name: every-second
    task: quick
    cron: "* * * * * *"
    timezone: UTC
`

// `ql retention run --dry-run` counts and deletes nothing; `ql retention
// run` deletes the same and prints each batch and a summary.
func TestRetentionRunDeletesWhatItsDryRunCounted(t *testing.T) {
	t.Parallel()
	dir, db := serveDefs(t, quickFile)
	aged := ageFinishedRuns(t, dir, db)
	code, out, errOut := ql(t, "retention", "run", "--dry-run", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("would delete runs: %d runs, %d attempts", aged, aged)) || !strings.Contains(out, "policy: runs 30d, logs 7d, log bytes 1GiB") {
		t.Fatalf("dry run: exit %d, %q %q; want %d runs counted", code, out, errOut, aged)
	}
	if n := runsFinishedBefore30Days(t, db); n != int(aged) {
		t.Fatalf("after the dry run %d old runs are left, want all %d", n, aged)
	}
	code, out, errOut = ql(t, "retention", "run", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "deleted runs: ") || !strings.Contains(out, "done in ") ||
		!strings.Contains(out, fmt.Sprintf("runs: %d runs, %d attempts, ", aged, aged)) {
		t.Fatalf("run: exit %d, %q %q; want %d runs deleted with progress", code, out, errOut, aged)
	}
	if n := runsFinishedBefore30Days(t, db); n != 0 {
		t.Fatalf("after the pass %d old runs are left", n)
	}
	if code, _, errOut := ql(t, "retention", "run", "--data-dir", dir, "--retention-runs", "soon"); code != 2 || !strings.Contains(errOut, "--retention-runs") {
		t.Fatalf("a bad setting: exit %d, %q; want 2 naming it", code, errOut)
	}
}

// `ql runs logs` tells a log that retention removed from one that was
// never written: the first says it was removed, the second that the
// attempt has not started, each with its reason in the -o json error
// line (log_removed, log_not_started) and what to do.
func TestRunsLogsTellsARemovedLogFromARunNotStartedYetByMessageAndReason(t *testing.T) {
	t.Parallel()
	dir, db := serveDefs(t, quickFile)
	done := runIn(t, db, "succeeded")
	rw, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	ago := (10 * 24 * time.Hour).Milliseconds()
	if _, err := rw.Exec(`UPDATE runs SET finished_at_ms = finished_at_ms - ?1 WHERE id = ?2;
		UPDATE attempts SET finished_at_ms = finished_at_ms - ?1 WHERE run_id = ?2`, ago, done); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := ql(t, "retention", "run", "--data-dir", dir, "--retention-runs", "off", "--retention-log-bytes", "off"); code != 0 || !strings.Contains(out, "old logs: 1 log (") {
		t.Fatalf("retention: exit %d, %q %q; want the aged log removed", code, out, errOut)
	}
	code, out, errOut := ql(t, "runs", "logs", done, "--data-dir", dir, "-o", "json")
	if code != 1 || out != "" || !strings.Contains(errOut, "was removed by log retention") || strings.Contains(errOut, "not started") ||
		!strings.Contains(errOut, " runs show "+done) {
		t.Fatalf("logs of a removed log: exit %d, %q %q; want exit 1, it said removed and where its other facts are", code, out, errOut)
	}
	if e := lastJSONError(t, errOut); e.Code != "not_found" || e.Reason != "log_removed" {
		t.Errorf("logs of a removed log: %+v; want not_found, log_removed", e)
	}

	// One command at a time, each sleeping 30 s: once one runs, a queued
	// Run waits behind it (read before, a queued Run may be the one about
	// to start).
	slowDir, slowDB := serveSlow(t, "30")
	runIn(t, slowDB, "running")
	queued := runIn(t, slowDB, "queued")
	code, out, errOut = ql(t, "runs", "logs", queued, "--data-dir", slowDir, "-o", "json")
	if code != 1 || out != "" || !strings.Contains(errOut, "has not started yet") || strings.Contains(errOut, "removed") ||
		!strings.Contains(errOut, "add -f to print its output once it starts") {
		t.Fatalf("logs of a queued run: exit %d, %q %q; want exit 1, it said not started and -f", code, out, errOut)
	}
	if e := lastJSONError(t, errOut); e.Code != "not_found" || e.Reason != "log_not_started" {
		t.Errorf("logs of a queued run: %+v; want not_found, log_not_started", e)
	}
}

// `ql retention run` given the server's --config file keeps what the
// server keeps: the file's retention settings and data directory apply
// (its other serve settings are accepted and left alone), so a pass by
// hand never deletes Runs the server was told to keep for longer than the
// defaults; so does $QL_CONFIG, which a pass ignored while it deleted what
// the server kept. --profile picks that profile's defaults, as the
// server's does. Not parallel: it sets $QL_CONFIG.
func TestRetentionRunTakesTheServersConfigFileAndProfile(t *testing.T) {
	dir, db := serveDefs(t, quickFile)
	ageFinishedRuns(t, dir, db)
	before := runsFinishedBefore30Days(t, db)
	config := writeFile(t, t.TempDir(), "serve.yaml", "data-dir: "+dir+"\nhttp-addr: 127.0.0.1:0\nretention: {runs: 60d, logs: 60d}\n")
	code, out, errOut := ql(t, "retention", "run", "--dry-run", "--config", config)
	if code != 0 || !strings.Contains(out, "policy: runs 60d, logs 60d, log bytes 1GiB") || !strings.Contains(out, "would delete runs: 0 runs") {
		t.Fatalf("dry run with the server's config: exit %d, %q %q; want its 60-day policy on its data directory, deleting nothing", code, out, errOut)
	}
	t.Setenv("QL_CONFIG", config)
	if code, out, errOut := ql(t, "retention", "run", "--data-dir", dir); code != 0 || !strings.Contains(out, "policy: runs 60d") {
		t.Fatalf("pass with the server's config in $QL_CONFIG: exit %d, %q %q", code, out, errOut)
	}
	t.Setenv("QL_CONFIG", "")
	if n := runsFinishedBefore30Days(t, db); n != before {
		t.Fatalf("a pass with the server's 60-day policy left %d of %d runs 40 days old", n, before)
	}
	if code, out, errOut := ql(t, "retention", "run", "--dry-run", "--data-dir", dir, "--profile", "edge"); code != 0 || !strings.Contains(out, "policy: runs 3d, logs 3d, log bytes 64MiB") {
		t.Fatalf("dry run with --profile edge: exit %d, %q %q; want the edge defaults", code, out, errOut)
	}
	bad := writeFile(t, t.TempDir(), "serve.yaml", "retention-days: 60\n")
	if code, _, errOut := ql(t, "retention", "run", "--dry-run", "--data-dir", dir, "--config", bad); code != 2 || !strings.Contains(errOut, `unknown setting "retention-days"`) {
		t.Fatalf("a config file with a mistake: exit %d, %q; want 2 naming the setting", code, errOut)
	}
}

// ageFinishedRuns waits for the server on dir to finish two Runs, then
// makes every succeeded Run 40 days older (past the 30-day default, within
// a 60-day setting) and returns how many it aged.
func ageFinishedRuns(t *testing.T, dir string, db *sql.DB) int64 {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM runs WHERE state = 'succeeded'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no two runs finished within 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	rw, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	res, err := rw.Exec(`UPDATE runs SET finished_at_ms = finished_at_ms - ? WHERE state = 'succeeded'`, (40 * 24 * time.Hour).Milliseconds())
	if err != nil {
		t.Fatal(err)
	}
	aged, err := res.RowsAffected()
	if err != nil {
		t.Fatal(err)
	}
	return aged
}

// runsFinishedBefore30Days counts the Runs that finished more than 30 days
// ago, the default runs retention.
func runsFinishedBefore30Days(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM runs WHERE finished_at_ms < ?`, time.Now().Add(-30*24*time.Hour).UnixMilli()).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// `ql retention run` counts (--dry-run) and then deletes the delivered and
// dead notifications older than --retention-notifications, from the flag,
// its variable or the server's config file, and never a pending one.
func TestRetentionRunDeletesOldDeliveredAndDeadNotifications(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, goodFile)
	rw, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	var project string
	if err := rw.QueryRow(`SELECT id FROM projects`).Scan(&project); err != nil {
		t.Fatal(err)
	}
	old, young := time.Now().Add(-40*24*time.Hour).UnixMilli(), time.Now().Add(-time.Hour).UnixMilli()
	for i, row := range []struct {
		state string
		at    int64
	}{{"delivered", old}, {"delivered", old}, {"dead", old}, {"pending", old}, {"delivered", young}} {
		if _, err := rw.Exec(`INSERT INTO notification_outbox (id, project_id, rule_key, subject, event, channel_json, payload_json, state,
			next_attempt_at_ms, created_at_ms, updated_at_ms) VALUES (?, ?, 'rule', ?, 'failed', '{}', '{}', ?, ?, ?, ?)`,
			fmt.Sprintf("n%d", i), project, fmt.Sprintf("run:%d", i), row.state, row.at, row.at, row.at); err != nil {
			t.Fatal(err)
		}
	}
	left := func() string {
		rows, err := rw.Query(`SELECT id FROM notification_outbox ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return strings.Join(ids, " ")
	}

	code, out, errOut := ql(t, "retention", "run", "--dry-run", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "notifications 30d") || !strings.Contains(out, "would delete old notifications: 3 delivered or dead") {
		t.Fatalf("dry run: exit %d, %q %q; want the default of 30 days and 3 notifications counted", code, out, errOut)
	}
	config := writeFile(t, t.TempDir(), "serve.yaml", "retention: {notifications: off}\n")
	if code, out, errOut := ql(t, "retention", "run", "--dry-run", "--data-dir", dir, "--config", config); code != 0 ||
		!strings.Contains(out, "notifications off") || strings.Contains(out, "old notifications") {
		t.Fatalf("dry run with notifications off in the config file: exit %d, %q %q; want the rule off", code, out, errOut)
	}
	t.Setenv("QL_RETENTION_NOTIFICATIONS", "60d")
	if code, out, errOut := ql(t, "retention", "run", "--data-dir", dir); code != 0 || !strings.Contains(out, "notifications 60d") {
		t.Fatalf("pass with $QL_RETENTION_NOTIFICATIONS=60d: exit %d, %q %q", code, out, errOut)
	}
	t.Setenv("QL_RETENTION_NOTIFICATIONS", "")
	if got := left(); got != "n0 n1 n2 n3 n4" {
		t.Fatalf("after dry runs and a 60-day pass the outbox holds %q, want every row", got)
	}
	code, out, errOut = ql(t, "retention", "run", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "deleted old notifications: ") || !strings.Contains(out, "old notifications: 3 delivered or dead; ") {
		t.Fatalf("pass: exit %d, %q %q; want 3 notifications deleted with progress", code, out, errOut)
	}
	if got := left(); got != "n3 n4" {
		t.Fatalf("after the pass the outbox holds %q, want the old pending row and the young delivered one", got)
	}
	if code, _, errOut := ql(t, "retention", "run", "--data-dir", dir, "--retention-notifications", "a month"); code != 2 || !strings.Contains(errOut, "--retention-notifications") {
		t.Fatalf("a bad setting: exit %d, %q; want 2 naming it", code, errOut)
	}
}

// keepEverything turns the server's own retention off, so that only the
// pass a test runs deletes anything.
var keepEverything = []string{"--retention-runs", "off", "--retention-logs", "off", "--retention-log-bytes", "off", "--retention-notifications", "off"}

// `ql retention run` past a log file it cannot remove (an immutable file,
// a read-only directory; here a non-empty directory in its place) names
// the file and the cause, keeps the file named for removal and deletes
// everything else: the old Runs (that file's too) and the old
// notifications, which have nothing to do with the file. It ends with a
// summary that says the pass is incomplete, never "done", and exit 4
// (failed_precondition, reason logs_not_removable: the file's state
// forbids it) saying what fixes that file's problem; once the file can
// go, the next pass removes it.
func TestRetentionRunGoesOnPastALogItCannotRemoveAndFailsNamingIt(t *testing.T) {
	t.Parallel()
	dir, db := serveDefs(t, quickFile, keepEverything...)
	aged := ageFinishedRuns(t, dir, db)
	var stuckRun, attempt string
	if err := db.QueryRow(`SELECT r.id, a.id FROM runs r JOIN attempts a ON a.run_id = r.id
		WHERE r.state = 'succeeded' AND r.finished_at_ms < ? AND a.log_path <> '' ORDER BY r.finished_at_ms LIMIT 1`,
		time.Now().Add(-30*24*time.Hour).UnixMilli()).Scan(&stuckRun, &attempt); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "qinglong-logs", attempt+".log")
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	oldNotifications(t, dir, 2)

	code, out, errOut := ql(t, "retention", "run", "--data-dir", dir)
	if code != 4 || !strings.Contains(out, "could not remove "+path+" (attempt "+attempt+" of Run "+stuckRun+"): directory not empty") ||
		!strings.Contains(out, "deleted runs: ") || !strings.Contains(out, "old notifications: 2 delivered or dead") {
		t.Fatalf("pass: exit %d, %q %q; want exit 4, the file named with its cause, the other %d old runs and both notifications deleted", code, out, errOut, aged-1)
	}
	if !strings.Contains(out, "incomplete after ") || strings.Contains(out, "done in") {
		t.Fatalf("the summary of a pass that left a file: %q; want it said incomplete, not done", out)
	}
	if !strings.Contains(errOut, "could not remove 1 log file (listed above): it stays named for removal") || !strings.Contains(errOut, path+": a directory is in the log's place: move it away") {
		t.Fatalf("the error: %q; want the count and what to do", errOut)
	}
	if n := runsFinishedBefore30Days(t, db); n != 0 {
		t.Fatalf("%d old runs are left, want none (the log that could not be removed stays named for removal)", n)
	}
	var notifications int
	if err := db.QueryRow(`SELECT count(*) FROM notification_outbox`).Scan(&notifications); err != nil || notifications != 0 {
		t.Fatalf("%d notifications left, %v; want the old delivered ones deleted", notifications, err)
	}

	if err := os.RemoveAll(filepath.Join(path, "inside")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = ql(t, "retention", "run", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "done in ") {
		t.Fatalf("the next pass: exit %d, %q %q; want it done", code, out, errOut)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the file that could not be removed, after the next pass: %v; want it removed", err)
	}
}

// oldNotifications adds n delivered notifications created 40 days ago.
func oldNotifications(t *testing.T, dir string, n int) {
	t.Helper()
	rw, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	old := time.Now().Add(-40 * 24 * time.Hour).UnixMilli()
	for i := range n {
		if _, err := rw.Exec(`INSERT INTO notification_outbox (id, project_id, rule_key, subject, event, channel_json, payload_json, state,
			next_attempt_at_ms, created_at_ms, updated_at_ms) SELECT ?, id, 'rule', ?, 'failed', '{}', '{}', 'delivered', ?, ?, ? FROM projects`,
			fmt.Sprintf("old%d", i), fmt.Sprintf("run:old%d", i), old, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// The progress of `ql retention run` counts, on every line, what the
// whole pass deleted so far: the logs rule's line after the runs rule's
// still counts the Runs and their logs.
func TestRetentionRunCountsSoFarOverTheWholePass(t *testing.T) {
	t.Parallel()
	dir, db := serveDefs(t, quickFile, keepEverything...)
	aged := ageFinishedRuns(t, dir, db)
	recent := time.Now().Add(-time.Hour).UnixMilli()
	deadline := time.Now().Add(30 * time.Second)
	var logged string
	for db.QueryRow(`SELECT r.id FROM runs r JOIN attempts a ON a.run_id = r.id
		WHERE r.state = 'succeeded' AND r.finished_at_ms > ? AND a.log_path <> '' LIMIT 1`, recent).Scan(&logged) != nil {
		if time.Now().After(deadline) {
			t.Fatal("no run with a log finished within 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	rw, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	if _, err := rw.Exec(`UPDATE attempts SET finished_at_ms = finished_at_ms - ? WHERE run_id = ?`, (10 * 24 * time.Hour).Milliseconds(), logged); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ql(t, "retention", "run", "--data-dir", dir, "--retention-log-bytes", "off")
	if code != 0 {
		t.Fatalf("pass: exit %d, %q %q", code, out, errOut)
	}
	var logsLine string
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, "deleted old logs: ") {
			logsLine = line
		}
	}
	if want := fmt.Sprintf("(so far %d runs, %d logs, 0 notifications)", aged, aged+1); !strings.Contains(logsLine, "deleted old logs: 1 log (") || !strings.HasSuffix(strings.TrimSpace(logsLine), want) {
		t.Fatalf("the logs rule's line %q; want its one log and %s, counting the runs rule's before it\n%s", logsLine, want, out)
	}
}

// The notifications help says the default --retention-notifications a
// retention pass uses: the profile's own, which a --retention-runs given
// does not move, as the pass's policy line shows it.
func TestNotificationsHelpSaysTheRetentionAPassUses(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"notifications", "--help"}, {"notifications", "retry", "--help"}} {
		code, out, errOut := ql(t, args...)
		if code != 0 || strings.Contains(out, "runs period") || !strings.Contains(strings.Join(strings.Fields(out), " "), "(default: standalone 30d, edge 3d; --retention-runs does not change it)") {
			t.Errorf("%v: exit %d %q %q; want the profiles' defaults, not the runs period", args, code, out, errOut)
		}
	}
	dir, _ := serveDefs(t, quickFile)
	code, out, errOut := ql(t, "retention", "run", "--dry-run", "--retention-runs", "10", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "runs 10d") || !strings.Contains(out, "notifications 30d") {
		t.Fatalf("dry run with --retention-runs 10: exit %d %q %q; want runs 10d beside notifications 30d", code, out, errOut)
	}
}
