package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/single/executor"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// olderBuild is a data directory an older build left, as a fixture: the
// build at commit f1a4c38, whose file had 16 migrations, applied
// testdata/upgrade/sqlite-0016 (project legacy: a trigger every 10 s
// under fire_once, a failing one every 20 s, one every 15 s under skip,
// one paused before its first occurrence, and a yearly one run by hand),
// created a console user and a token, and served for about 30 s: Runs
// succeeded and failed with their logs, the hand-run one was lost at the
// stop (server_stopped), and the failures' notifications to an address
// that refuses are dead or pending. qinglong.sql is that file's dump, its
// log paths moved to /var/lib/qinglong; credentials.json holds the user's
// password and the token as they were created. The dump is never
// regenerated: it is what that build wrote.
const olderBuild = "testdata/upgrade/sqlite-0016"

type olderCredentials struct{ User, Password, Token string }

// olderBuildsDataDir builds the olderBuild fixture's data directory in a
// new directory, with the credentials that fixture's build created.
func olderBuildsDataDir(t *testing.T) (string, olderCredentials) {
	t.Helper()
	dir := dataDirOf(t, olderBuild)
	var creds olderCredentials
	b, err := os.ReadFile(filepath.Join(olderBuild, "credentials.json"))
	if err == nil {
		err = json.Unmarshal(b, &creds)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir, creds
}

// dataDirOf builds a fixture's data directory in a new directory: the file
// from its dump, in WAL mode as a server leaves it, and the captured
// output of its attempts.
func dataDirOf(t *testing.T, fixture string) string {
	t.Helper()
	dir := t.TempDir()
	layout := LayoutOf(dir)
	dump, err := os.ReadFile(filepath.Join(fixture, "qinglong.sql"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", layout.DB)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(dump)); err != nil {
		t.Fatalf("load the older build's dump: %v", err)
	}
	if _, err := db.Exec(`PRAGMA journal_mode = WAL`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(layout.Logs, 0o700); err != nil {
		t.Fatal(err)
	}
	logs, err := os.ReadDir(filepath.Join(fixture, "logs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range logs {
		b, err := os.ReadFile(filepath.Join(fixture, "logs", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(layout.Logs, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// migrationsOf lists the ids in a file's migration history.
func migrationsOf(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT id FROM ql_schema_migrations ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// streamIDs are the ids of this build's migrations from the index from on.
func streamIDs(from int) []string {
	var out []string
	for _, m := range sqlitestore.Stream()[from:] {
		out = append(out, m.ID)
	}
	return out
}

// The periods of the fixture's triggers that fire on a fixed step.
var olderBuildPeriods = map[string]int64{"every-10s": 10_000, "bad-every-20s": 20_000, "skip-every-15s": 15_000, "paused-every-10s": 10_000}

// requireEveryOccurrenceOnce checks, for each trigger of olderBuildPeriods,
// that every nominal occurrence from its first accounted one to its last
// is exactly one Run of the schedule or inside exactly one ledger entry:
// across the upgrade nothing was admitted twice and nothing went missing.
func requireEveryOccurrenceOnce(t *testing.T, db *sql.DB) {
	t.Helper()
	for name, period := range olderBuildPeriods {
		seen := map[int64]int{}
		rows, err := db.Query(`SELECT r.scheduled_for_ms FROM runs r JOIN triggers g ON g.id = r.trigger_id
			WHERE g.name = ? AND r.idempotency_key LIKE 'ql3:cron:%'`, name)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var at int64
			if err := rows.Scan(&at); err != nil {
				t.Fatal(err)
			}
			seen[at]++
		}
		rows.Close()
		rows, err = db.Query(`SELECT l.first_scheduled_at_ms, l.last_scheduled_at_ms, l.occurrence_count FROM occurrence_ledger l
			JOIN triggers g ON g.id = l.trigger_id WHERE g.name = ?`, name)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var first, last, n int64
			if err := rows.Scan(&first, &last, &n); err != nil {
				t.Fatal(err)
			}
			if (last-first)/period+1 != n {
				t.Errorf("%s: a ledger entry counts %d occurrences from %d to %d", name, n, first, last)
			}
			for at := first; at <= last; at += period {
				seen[at]++
			}
		}
		rows.Close()
		if len(seen) == 0 {
			t.Errorf("%s: no occurrence accounted for", name)
			continue
		}
		times := make([]int64, 0, len(seen))
		for at := range seen {
			times = append(times, at)
		}
		slices.Sort(times)
		for at := times[0]; at <= times[len(times)-1]; at += period {
			if seen[at] != 1 {
				t.Errorf("%s: the occurrence at %s is accounted for %d times; want once", name, time.UnixMilli(at).UTC().Format(time.RFC3339), seen[at])
			}
		}
	}
}

// A server of this build started on a data directory an older build left
// migrates the file, says so, and serves everything the older build
// wrote: its Runs with their states, attempts and logs, its user and its
// token (API and console), its notifications, and its paused trigger,
// which resumes under this build. Scheduling goes on from where the older
// build stopped: each occurrence due meanwhile is admitted or passed over
// as its policy says, once.
func TestAServerOfThisBuildServesADataDirectoryAnOlderBuildLeft(t *testing.T) {
	t.Parallel()
	dir, creds := olderBuildsDataDir(t)
	db := observer(t, dir)
	before := migrationsOf(t, db)
	if len(before) >= len(sqlitestore.Stream()) {
		t.Fatalf("the fixture has %d migrations and this build %d: nothing to upgrade", len(before), len(sqlitestore.Stream()))
	}
	type runRow struct{ id, state string }
	readRuns := func() []runRow {
		rows, err := db.Query(`SELECT id, state FROM runs ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []runRow
		for rows.Next() {
			var r runRow
			if err := rows.Scan(&r.id, &r.state); err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	olderRuns := readRuns()
	var stoppedAt int64
	if err := db.QueryRow(`SELECT max(updated_at_ms) FROM runs`).Scan(&stoppedAt); err != nil {
		t.Fatal(err)
	}
	var notifications []string
	rows, err := db.Query(`SELECT id FROM notification_outbox`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		notifications = append(notifications, id)
	}
	rows.Close()
	if len(notifications) == 0 {
		t.Fatal("the fixture holds no notification")
	}

	// The new server starts half a minute after the older one stopped,
	// its clock running from there.
	started := time.Now()
	nowMs := func() int64 { return stoppedAt + 30_000 + time.Since(started).Milliseconds() }
	var logs syncbuf.Buffer
	srv, err := Start(t.Context(), Config{DataDir: dir, HTTPAddr: "127.0.0.1:0", NowMs: nowMs, Cadence: 250 * time.Millisecond,
		StopTimeout: testStopTimeout, Concurrency: 2, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatalf("start on the older build's data directory: %v", err)
	}
	stopAtCleanup(t, srv)
	if got, want := migrationsOf(t, db), streamIDs(0); !slices.Equal(got, want) {
		t.Fatalf("after the start the history is %v; want %v", got, want)
	}
	var migrated map[string]any
	for line := range strings.Lines(logs.String()) {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["code"] == CodeMigrated {
			migrated = rec
		}
	}
	applied, _ := json.Marshal(migrated["applied"])
	if want, _ := json.Marshal(streamIDs(len(before))); string(applied) != string(want) {
		t.Errorf("the server's %s line lists %s; want the migrations it applied, %s:\n%s", CodeMigrated, applied, want, logs.String())
	}

	waitFor(t, "the first round after the upgrade to admit", 30*time.Second, func() bool { return len(readRuns()) > len(olderRuns) })
	now := readRuns()
	for _, r := range olderRuns {
		if !slices.Contains(now, r) {
			t.Errorf("the older build's Run %s (%s) is not there as it was", r.id, r.state)
		}
	}

	// The older build's token reads its Runs over the API, and their logs.
	base := "http://" + srv.Addr()
	status, body, _ := httpcall.Bearer(t, http.MethodGet, base+"/api/v1/runs?limit=100", creds.Token, nil)
	if status != http.StatusOK {
		t.Fatalf("GET /api/v1/runs with the older build's token: %d %s", status, body)
	}
	for _, r := range olderRuns {
		if !strings.Contains(string(body), r.id) {
			t.Errorf("the API's run list lacks the older build's Run %s", r.id)
		}
	}
	var lost, failed string
	if err := db.QueryRow(`SELECT r.id FROM runs r JOIN attempts a ON a.run_id = r.id WHERE r.state = 'lost' AND a.error_code = 'server_stopped'`).Scan(&lost); err != nil {
		t.Fatalf("the older build's Run lost at its stop: %v", err)
	}
	if err := db.QueryRow(`SELECT id FROM runs WHERE state = 'failed' ORDER BY id LIMIT 1`).Scan(&failed); err != nil {
		t.Fatal(err)
	}
	for id, says := range map[string]string{lost: "started", failed: "about to fail"} {
		status, body, _ := httpcall.Bearer(t, http.MethodGet, base+"/api/v1/runs/"+id+"/log", creds.Token, nil)
		if status != http.StatusOK || !strings.Contains(string(body), says) {
			t.Errorf("the log of the older build's Run %s: %d %q; want %q", id, status, body, says)
		}
	}
	status, body, _ = httpcall.Bearer(t, http.MethodGet, base+"/api/v1/notifications?limit=100", creds.Token, nil)
	if status != http.StatusOK {
		t.Fatalf("GET /api/v1/notifications with the older build's token: %d %s", status, body)
	}
	for _, id := range notifications {
		if !strings.Contains(string(body), id) {
			t.Errorf("the API's notification list lacks the older build's notification %s", id)
		}
	}

	// Its console user and its token sign in.
	site := &consoleSite{srv: srv, dir: dir, base: base}
	if status, to, msg := site.signInUser(t, consoleClient(t), creds.User, creds.Password); status != http.StatusSeeOther || to != "/" {
		t.Errorf("the older build's user signs in: %d to %q (%s); want 303 to /", status, to, msg)
	}
	site.signIn(t, consoleClient(t), creds.Token)

	// Its paused trigger is still paused, and resumes.
	var pausedID string
	var paused int
	if err := db.QueryRow(`SELECT g.id, s.paused FROM triggers g JOIN trigger_schedules s ON s.trigger_id = g.id WHERE g.name = 'paused-every-10s'`).Scan(&pausedID, &paused); err != nil {
		t.Fatal(err)
	}
	if paused != 1 {
		t.Fatalf("the trigger the older build paused is not paused after the upgrade")
	}
	if status, body, _ := httpcall.Bearer(t, http.MethodPost, base+"/api/v1/triggers/"+pausedID+"/resume", creds.Token, []byte("{}")); status != http.StatusOK {
		t.Fatalf("resume the trigger the older build paused: %d %s", status, body)
	}
	waitFor(t, "the resumed trigger to run", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE trigger_id = ?`, pausedID) > 0
	})
	// A few more occurrences under this build.
	waitFor(t, "this build to admit on time", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE created_at_ms >= ?`, stoppedAt+36_000) >= 2
	})
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	requireEveryOccurrenceOnce(t, db)
}

// While a server of an older build serves a data directory, this build's
// commands and server leave its file as it is: migrating it would leave
// that server running on a schema it does not know (and a build older
// than the directory's server lock would let this build's server start
// beside it). Each refuses, saying which migrations wait and what to do;
// once that server stopped, this build migrates the file.
func TestThisBuildDoesNotMigrateAFileAnOlderServerServes(t *testing.T) {
	t.Parallel()
	dir, _ := olderBuildsDataDir(t)
	db := observer(t, dir)
	before := migrationsOf(t, db)
	// What an older server holds while it serves: an executor owner lock
	// (older builds have no directory lock).
	older, err := executor.AcquireOwner(LayoutOf(dir).Owners)
	if err != nil {
		t.Fatal(err)
	}
	refused := func(what string, err error) {
		t.Helper()
		if !qlerror.Is(err, qlerror.FailedPrecondition) {
			t.Fatalf("%s beside an older server: %v; want it refused", what, err)
		}
		for _, says := range append(streamIDs(len(before)), "a server of an older build is serving it", "stop that server first", "Upgrading") {
			if !strings.Contains(err.Error(), says) {
				t.Errorf("%s beside an older server says %q; want it to say %q", what, err, says)
			}
		}
		if got := migrationsOf(t, db); !slices.Equal(got, before) {
			t.Fatalf("%s beside an older server migrated its file to %v", what, got)
		}
	}
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
	if err == nil {
		b.Close()
	}
	refused("a command (ql apply)", err)
	srv, err := Start(t.Context(), Config{DataDir: dir, Cadence: time.Hour, StopTimeout: testStopTimeout, Logger: slog.New(slog.DiscardHandler)})
	if err == nil {
		stopAtCleanup(t, srv)
	}
	refused("this build's server", err)

	if err := older.Release(); err != nil {
		t.Fatal(err)
	}
	b, err = OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatalf("a command once the older server stopped: %v", err)
	}
	b.Close()
	if got, want := migrationsOf(t, db), streamIDs(0); !slices.Equal(got, want) {
		t.Fatalf("once the older server stopped the history is %v; want %v", got, want)
	}
}

// releasedBuild is the data directory the last released build (commit
// 8b6685d, 19 migrations) left, as a fixture: it applied project released
// (task flaky exits 3 under retry {maxAttempts: 2, backoff: 20s, on:
// [failed]}; task long sleeps 30 s under retry {maxAttempts: 2, backoff:
// 5s, on: [lost]}), ran a Run of each by hand and was stopped with
// --stop-timeout 2s five seconds later: flaky's first attempt failed and
// long's was lost at the stop (server_stopped), so both Runs wait to
// retry, their next attempts claimed with the backoff's end. qinglong.sql
// is that file's dump, its log paths moved to /var/lib/qinglong. The dump
// is never regenerated: it is what that build wrote.
const releasedBuild = "testdata/upgrade/sqlite-0019"

// A Run the released build left waiting to retry gets its next attempt
// from this build once the backoff is over, as it would have from the
// build that decided the retry: the attempt that build claimed runs, under
// the attempt number it was given, and its end finishes the Run under the
// task's retry policy (the last allowed attempt failing fails the Run).
func TestARunTheReleasedBuildLeftWaitingToRetryRetriesAfterTheUpgrade(t *testing.T) {
	t.Parallel()
	dir := dataDirOf(t, releasedBuild)
	db := observer(t, dir)
	runOf := func(trigger string) string {
		var id string
		if err := db.QueryRow(`SELECT r.id FROM runs r JOIN triggers g ON g.id = r.trigger_id WHERE g.name = ? AND r.state = 'retry_wait'`, trigger).Scan(&id); err != nil {
			t.Fatalf("the released build's Run of %s waiting to retry: %v", trigger, err)
		}
		return id
	}
	failing, lost := runOf("flaky-yearly"), runOf("long-yearly")
	var stoppedAt int64
	if err := db.QueryRow(`SELECT max(updated_at_ms) FROM runs`).Scan(&stoppedAt); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	nowMs := func() int64 { return stoppedAt + 30_000 + time.Since(started).Milliseconds() }
	srv, err := Start(t.Context(), Config{DataDir: dir, NowMs: nowMs, Cadence: 250 * time.Millisecond,
		StopTimeout: testStopTimeout, Concurrency: 2, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("start on the released build's data directory: %v", err)
	}
	stopAtCleanup(t, srv)

	waitFor(t, "the failing Run's retry to finish it", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE id = ? AND state = 'failed'`, failing) == 1
	})
	var number, exit int
	var state string
	if err := db.QueryRow(`SELECT number, state, exit_code FROM attempts WHERE run_id = ? ORDER BY number DESC LIMIT 1`, failing).Scan(&number, &state, &exit); err != nil {
		t.Fatal(err)
	}
	if number != 2 || state != "failed" || exit != 3 {
		t.Errorf("the failing Run's last attempt is number %d, %s, exit %d; want its retry, number 2, failed with exit 3", number, state, exit)
	}
	waitFor(t, "the Run lost at the stop to run its retry", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM attempts WHERE run_id = ? AND number = 2 AND state = 'running'`, lost) == 1
	})
	if n := count(t, db, `SELECT count(*) FROM attempts WHERE run_id IN (?, ?)`, failing, lost); n != 4 {
		t.Errorf("the two Runs have %d attempts; want 4, the released build's and one retry each", n)
	}
}
