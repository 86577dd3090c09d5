package sqlitestore

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

func openUnmigrated(t *testing.T, path string) *Store {
	t.Helper()
	return openUnmigratedWith(t, Config{Path: path})
}

func openUnmigratedWith(t *testing.T, cfg Config) *Store {
	t.Helper()
	cfg.NowMs = newClock().NowMs
	s, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func requireNotReady(t *testing.T, err error, check string) {
	t.Helper()
	var nr *NotReadyError
	if !errors.As(err, &nr) || nr.Check != check {
		t.Fatalf("readiness: want failed check %q, got %v", check, err)
	}
	if !qlerror.Is(err, qlerror.FailedPrecondition) {
		t.Fatalf("readiness error %v is not coded failed_precondition", err)
	}
}

func TestStreamIDsAndChecksumsAreStable(t *testing.T) {
	t.Parallel()
	stream := Stream()
	if len(stream) == 0 || stream[0].ID != "sqlite-0001-local-core" {
		t.Fatalf("stream %+v does not start with sqlite-0001-local-core", stream)
	}
	for i, m := range stream {
		if !strings.HasPrefix(m.Checksum, "sha256:") || len(m.Checksum) != 71 {
			t.Fatalf("migration %d checksum %q is not sha256:<64 hex>", i, m.Checksum)
		}
	}
}

// Each migration has its own number, from 0001 without a gap: two
// branches that each took the next number would otherwise both apply, in
// an order only their names decide, and a file migrated by one of them
// before the other merged would refuse the merged stream.
func TestTheStreamIsNumberedFromOneWithoutGapsOrRepeats(t *testing.T) {
	t.Parallel()
	for i, m := range Stream() {
		if want := fmt.Sprintf("sqlite-%04d-", i+1); !strings.HasPrefix(m.ID, want) {
			t.Fatalf("migration %d is %s; want the number %04d (a gap or a repeated number: renumber the newest file)", i+1, m.ID, i+1)
		}
	}
}

func TestMigrateAppliesOnceAndTheResultIsReady(t *testing.T) {
	t.Parallel()
	s := openUnmigrated(t, filepath.Join(t.TempDir(), "ql.db"))
	requireNotReady(t, s.Ready(t.Context()), CheckHistory)
	applied, err := s.Migrate(t.Context())
	if err != nil || len(applied) != len(Stream()) {
		t.Fatalf("first migrate applied %v, %v; want the whole stream", applied, err)
	}
	again, err := s.Migrate(t.Context())
	if err != nil || len(again) != 0 {
		t.Fatalf("second migrate applied %v, %v; want nothing", again, err)
	}
	if err := s.Ready(t.Context()); err != nil {
		t.Fatalf("ready after migrate: %v", err)
	}
}

func TestConcurrentMigrationsApplyEachStepOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ql.db")
	// Each migrator waits for the write lock as long as the store allows:
	// the guarantee is that they serialise, and under a loaded race run one
	// migration can hold the lock longer than the default wait.
	cfg := Config{Path: path, BusyTimeout: MaxBusyTimeout}
	stores := []*Store{openUnmigratedWith(t, cfg), openUnmigratedWith(t, cfg), openUnmigratedWith(t, cfg)}
	var wg sync.WaitGroup
	applied := make([][]string, len(stores))
	errs := make([]error, len(stores))
	for i, s := range stores {
		wg.Go(func() { applied[i], errs[i] = s.Migrate(t.Context()) })
	}
	wg.Wait()
	total := 0
	for i := range stores {
		if errs[i] != nil {
			t.Fatalf("migrator %d: %v", i, errs[i])
		}
		total += len(applied[i])
	}
	if total != len(Stream()) {
		t.Fatalf("%d migrations applied in total by three migrators, want %d", total, len(Stream()))
	}
	if err := stores[0].Ready(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestMigrateRefusesAFileWithForeignTables(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "foreign.db")
	e := openRaw(t, path)
	if _, err := e.Exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	s := openUnmigrated(t, path)
	_, err := s.Migrate(t.Context())
	if !qlerror.Is(err, qlerror.FailedPrecondition) || !strings.Contains(err.Error(), "no QingLong migration history") {
		t.Fatalf("migrate over a foreign file: %v", err)
	}
	var n int
	if err := e.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'runs'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("migrate wrote into a foreign file (runs tables: %d, %v)", n, err)
	}
}

func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Each case tampers with a ready file the way an outside tool could, and
// readiness must name the check that catches it.
func TestReadinessFailsClosedOnEveryDrift(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, check, tamper string
	}{
		{"extra index", CheckSchema, `CREATE INDEX runs_extra ON runs (state)`},
		{"dropped index", CheckSchema, `DROP INDEX trigger_schedules_due`},
		{"extra table", CheckSchema, `CREATE TABLE scratch (x INTEGER)`},
		{"dropped append-only trigger", CheckSchema, `DROP TRIGGER run_events_append_only_update`},
		{"edited checksum", CheckHistory, `UPDATE ql_schema_migrations SET checksum = 'sha256:' || substr('0000000000000000000000000000000000000000000000000000000000000000', 1, 64)`},
		{"migration from a newer build", CheckHistory, `INSERT INTO ql_schema_migrations VALUES ('sqlite-9999-future', 'sha256:' || substr('1111111111111111111111111111111111111111111111111111111111111111', 1, 64), 0)`},
		{"capability moved", CheckCapability, `UPDATE ql_schema_capability SET version = version + 1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "ql.db")
			s := openUnmigrated(t, path)
			if _, err := s.Migrate(t.Context()); err != nil {
				t.Fatal(err)
			}
			s.Close()
			if _, err := openRaw(t, path).Exec(c.tamper); err != nil {
				t.Fatalf("tamper: %v", err)
			}
			requireNotReady(t, openUnmigrated(t, path).Ready(t.Context()), c.check)
		})
	}
}

// Open always switches the file to WAL, so a writer that is not in WAL
// mode (a filesystem that refuses it, a tool that swapped the connection)
// is built by hand here: readiness must refuse it.
func TestReadinessRefusesAWriterOutsideWAL(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ql.db")
	s := openUnmigrated(t, path)
	if _, err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	w := openRaw(t, path)
	w.SetMaxOpenConns(1)
	if _, err := w.Exec(`PRAGMA journal_mode = DELETE`); err != nil {
		t.Fatal(err)
	}
	s2 := &Store{writer: w, reader: openRaw(t, path), nowMs: newClock().NowMs}
	requireNotReady(t, s2.Ready(t.Context()), CheckJournalMode)
}

// A Run found lost records when, as its finish time: found lost by
// recovery (its owner gone) or by its server's stop, and also one an older
// build found lost without recording it, which migrating gives its last
// update (when it was found lost). An unfinished Run has none.
func TestARunFoundLostRecordsWhenAlsoOneAnOlderBuildFoundLost(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := envBefore(t, "sqlite-0015-lost-found-at")
	s := e.store
	// This build's take reads the recheck columns a later migration adds
	// (0022), its read of a queued Run the attempts' backoff column (0019)
	// and its admission writes the Run's backfill mark (0034) and the
	// attempt's place (0036), read beside the attempts' mark (0033); the older
	// build admits and reads through them with them there, and they go
	// before the file is migrated, which adds them again.
	later := []struct{ table, col string }{
		{"trigger_schedules", "recheck_at_ms"}, {"trigger_schedules", "recheck_state_version"}, {"attempts", "available_at_ms"}, {"runs", "backfilled"},
		{"attempts", "backfilled"}, {"attempts", "place_of"},
	}
	for _, l := range later {
		if err := e.tamper(ctx, `ALTER TABLE `+l.table+` ADD COLUMN `+l.col+` INTEGER`); err != nil {
			t.Fatal(err)
		}
	}
	undo, untitle, uncap := projectPauseLater(t, e), titlesLater(t, e), projectCapLater(t, e)
	d := e.defs(t, "alpha", everyMinute)
	undo()
	e.take(t, 1)
	before := e.admit(t, d.Trigger.TriggerID)
	if _, err := e.finish(ctx, before, run.AttemptLost); err != nil {
		t.Fatal(err)
	}
	// The older build's row: found lost, with no finish time.
	if err := e.tamper(ctx, `UPDATE runs SET finished_at_ms = NULL WHERE id = ?`, before); err != nil {
		t.Fatal(err)
	}
	untitle()
	uncap()
	for _, l := range later {
		if err := e.tamper(ctx, `ALTER TABLE `+l.table+` DROP COLUMN `+l.col); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	recovered := e.admit(t, d.Trigger.TriggerID)
	if _, err := e.finish(ctx, recovered, run.AttemptLost); err != nil {
		t.Fatal(err)
	}
	stopped := e.admit(t, d.Trigger.TriggerID)
	a := e.pending(t, stopped)
	if _, _, _, err := s.AttemptStart(ctx, a.ID, "stopping", filepath.Join(t.TempDir(), a.ID+".log")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AttemptFinish(ctx, run.Attempt{ID: a.ID, State: run.AttemptLost, ErrorCode: "server_stopped"}); err != nil {
		t.Fatal(err)
	}
	queued := e.admit(t, d.Trigger.TriggerID)
	for _, r := range []struct {
		what, id string
		finished bool
	}{{"found lost by an older build", before, true}, {"found lost by recovery", recovered, true}, {"lost at its server's stop", stopped, true}, {"queued", queued, false}} {
		var updated int64
		var finished sql.NullInt64
		if err := e.raw.QueryRow(`SELECT updated_at_ms, finished_at_ms FROM runs WHERE id = ?`, r.id).Scan(&updated, &finished); err != nil {
			t.Fatal(err)
		}
		if finished.Valid != r.finished || (r.finished && finished.Int64 != updated) {
			t.Errorf("run %s: finished at %v (last updated %d), want a finish time %v, at its last update", r.what, finished, updated, r.finished)
		}
	}
}

// Finding nothing to migrate in a file already at the end of the stream
// takes no write lock: while another process holds it, a command's open
// neither waits it out once per migration nor fails naming a migration it
// never needed (readiness, which must write, names the lock instead).
func TestAnUpToDateFileMigratesWithoutTheWriteLock(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ql.db")
	if _, err := openUnmigrated(t, path).Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(t.Context(), "ROLLBACK") //nolint:errcheck // the lock only has to end
	s := openUnmigratedWith(t, Config{Path: path, BusyTimeout: 200 * time.Millisecond})
	applied, err := s.Migrate(t.Context())
	if err != nil || len(applied) != 0 {
		t.Fatalf("migrate of an up-to-date file under another's write lock: applied %v, %v; want nothing to do and no error", applied, err)
	}
}

// envBefore is an env on a new database file that an older build wrote:
// migrated up to, not including, the migration named id.
func envBefore(t *testing.T, id string) *env {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ql.db")
	c := newClock()
	s, err := Open(t.Context(), Config{Path: path, NowMs: c.NowMs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	stream := Stream()
	at := slices.IndexFunc(stream, func(m Migration) bool { return m.ID == id })
	if at < 0 {
		t.Fatalf("the stream has no %s", id)
	}
	if _, err := s.migrate(t.Context(), stream[:at]); err != nil {
		t.Fatal(err)
	}
	return &env{store: s, clock: c, raw: openRaw(t, path), path: path}
}
