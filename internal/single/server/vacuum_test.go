package server

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// thinnedHistory gives dataDir's database a trigger with n Runs, then
// deletes every other one: rows thinned out of their pages, which an
// incremental vacuum cannot give back and only a full vacuum does.
func thinnedHistory(t *testing.T, dataDir string, n int) {
	t.Helper()
	publish(t, dataDir, 1, "true")
	db, err := sql.Open("sqlite", LayoutOf(dataDir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms)
		SELECT printf('00000000-0000-7000-8000-%012x', i), tr.project_id, tr.task_id, tr.task_revision, tr.trigger_id, tr.revision, er.id,
			'thinned:' || i, i, 'succeeded', 3, 3, 0, 0, 1, 1
		FROM n, trigger_revisions tr JOIN execution_revisions er ON er.task_id = tr.task_id AND er.task_revision = tr.task_revision`,
		`DELETE FROM runs WHERE idempotency_key LIKE 'thinned:%' AND CAST(substr(idempotency_key, 9) AS INTEGER) % 2 = 0`,
		`PRAGMA wal_checkpoint(TRUNCATE)`} {
		if _, err := db.ExecContext(t.Context(), q, n); err != nil {
			t.Fatal(err)
		}
	}
}

// A vacuum gives back the space rows deleted from half-full pages took,
// keeps every row and the file's mode 0600, and leaves a sound database
// (the copy it wrote is gone: renamed over the file); it says where it
// starts.
func TestAVacuumGivesBackTheSpaceOfThinnedRowsAndKeepsTheFilePrivate(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	thinnedHistory(t, dir, 20_000)
	db := LayoutOf(dir).DB
	kept := count(t, observer(t, dir), `SELECT count(*) FROM runs`)
	var progress bytes.Buffer
	sum, err := Vacuum(t.Context(), db, Standalone, &progress)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	if sum.After >= sum.Before*3/4 || sum.After != info.Size() {
		t.Errorf("vacuum: %d bytes before, %d after (the file has %d); want the thinned half given back", sum.Before, sum.After, info.Size())
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("the vacuumed file's mode is %v; want 0600", info.Mode().Perm())
	}
	if _, err := os.Stat(db + VacuumSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the vacuum's copy is still there: %v", err)
	}
	if !strings.Contains(progress.String(), "vacuuming "+db) {
		t.Errorf("the vacuum said %q; want its start", progress.String())
	}
	b, err := OpenBackend(t.Context(), db, nil)
	if err != nil {
		t.Fatalf("a server's open of the vacuumed file: %v", err)
	}
	defer b.Close()
	if n := count(t, observer(t, dir), `SELECT count(*) FROM runs`); n != kept {
		t.Errorf("the vacuumed file holds %d Runs; want the %d it held", n, kept)
	}
	var check string
	if err := observer(t, dir).QueryRowContext(t.Context(), `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check of the vacuumed file: %q, %v", check, err)
	}
}

// A vacuum is refused while a server serves the data directory, saying
// to stop it, and changes nothing.
func TestAVacuumIsRefusedWhileAServerServesTheDirectory(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	h := startHelper(t, dir, 1)
	waitFor(t, "the server's lock", 30*time.Second, func() bool {
		serving, err := Serving(LayoutOf(dir))
		return err == nil && serving
	})
	before, err := os.Stat(LayoutOf(dir).DB)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Vacuum(t.Context(), LayoutOf(dir).DB, Standalone, io.Discard)
	if qlerror.CodeOf(err) != qlerror.FailedPrecondition || !strings.Contains(err.Error(), "stop the server, run the vacuum, then start the server again") {
		t.Fatalf("a vacuum beside a server: %v; want it refused, saying to stop the server", err)
	}
	after, err := os.Stat(LayoutOf(dir).DB)
	if err != nil || !os.SameFile(before, after) {
		t.Fatalf("the refused vacuum replaced the database file (%v)", err)
	}
	h.stop(t)
}

// A vacuum on a disk without room for its copy is refused before it
// writes anything, saying how much it needs: here a file (sparse, so it
// takes no room itself) larger than the disk's free space.
func TestAVacuumWithoutRoomForItsCopyIsRefusedSayingHowMuchItNeeds(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	db := LayoutOf(dir).DB
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * int64(st.Bsize) //nolint:unconvert // Bsize is an int32 on 32-bit ARM
	if err := os.Truncate(db, free+free/2); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot make a sparse file larger than the disk's free space: %v", err)
		}
		t.Skipf("cannot make a sparse file larger than the disk's free space here: %v", err)
	}
	_, err := Vacuum(t.Context(), db, Standalone, io.Discard)
	if qlerror.CodeOf(err) != qlerror.Unavailable || !strings.Contains(err.Error(), "not enough free space to vacuum") || !strings.Contains(err.Error(), "MiB more there") {
		t.Fatalf("a vacuum without room: %v; want it refused saying how much more room it needs", err)
	}
	if _, err := os.Stat(db + VacuumSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the refused vacuum wrote its copy: %v", err)
	}
}

// A vacuum whose context ends leaves the database as it was and no copy
// beside it; a copy an earlier vacuum cut off by a kill left is removed by
// the next vacuum, which then compacts the file.
func TestAnInterruptedVacuumLeavesTheDatabaseAsItWas(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	thinnedHistory(t, dir, 2_000)
	db := LayoutOf(dir).DB
	before, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	// Ended as the vacuum says it starts, before its copy is written.
	if _, err := Vacuum(ctx, db, Standalone, cancelOnWrite{cancel}); !errors.Is(err, context.Canceled) {
		t.Fatalf("an interrupted vacuum: %v; want it ended by its context", err)
	}
	after, err := os.Stat(db)
	if err != nil || !os.SameFile(before, after) || after.Size() != before.Size() {
		t.Fatalf("the interrupted vacuum changed the database file (%v)", err)
	}
	if _, err := os.Stat(db + VacuumSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the interrupted vacuum left its copy: %v", err)
	}
	if err := os.WriteFile(db+VacuumSuffix, []byte("half a copy"), 0o600); err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	if _, err := Vacuum(t.Context(), db, Standalone, &progress); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "removed "+db+VacuumSuffix) {
		t.Errorf("the next vacuum said %q; want it to say it removed the earlier copy", progress.String())
	}
	if n := count(t, observer(t, filepath.Dir(db)), `SELECT count(*) FROM runs WHERE idempotency_key LIKE 'thinned:%'`); n != 1_000 {
		t.Errorf("the vacuumed file holds %d of the 1000 Runs kept", n)
	}
}

// cancelOnWrite ends a context at the first progress line.
type cancelOnWrite struct{ cancel context.CancelFunc }

func (c cancelOnWrite) Write(p []byte) (int, error) {
	c.cancel()
	return len(p), nil
}

// An edge vacuum gives a database an earlier build made with 4 KiB pages
// the edge's 1 KiB pages, which write about a third as much per Run,
// keeping every row and saying so; a standalone vacuum keeps the file's
// own, and an edge vacuum of a file that has them changes nothing of it.
func TestAnEdgeVacuumGivesAnOlderDatabaseTheEdgesSmallPages(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	thinnedHistory(t, dir, 2_000)
	db := LayoutOf(dir).DB
	kept := count(t, observer(t, dir), `SELECT count(*) FROM runs`)
	if _, err := Vacuum(t.Context(), db, Standalone, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := sqlitestore.PageBytesOf(db, 0); got != 4096 {
		t.Fatalf("after a standalone vacuum the file has pages of %d bytes; want its own 4096", got)
	}
	var progress bytes.Buffer
	if _, err := Vacuum(t.Context(), db, Edge, &progress); err != nil {
		t.Fatal(err)
	}
	if got := sqlitestore.PageBytesOf(db, 0); got != edgePageBytes {
		t.Fatalf("after an edge vacuum the file has pages of %d bytes; want the edge's %d", got, edgePageBytes)
	}
	if !strings.Contains(progress.String(), "the copy takes the edge's pages of 1024 bytes (the file has 4096)") {
		t.Errorf("the edge vacuum said %q; want it to name the page sizes", progress.String())
	}
	if got := count(t, observer(t, dir), `SELECT count(*) FROM runs`); got != kept {
		t.Errorf("the edge vacuum kept %d Runs of %d", got, kept)
	}
	progress.Reset()
	if _, err := Vacuum(t.Context(), db, Edge, &progress); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(progress.String(), "pages of") {
		t.Errorf("an edge vacuum of a file with the edge's pages said %q", progress.String())
	}
	b, err := OpenBackend(t.Context(), db, nil)
	if err != nil {
		t.Fatalf("the database after the edge vacuum: %v", err)
	}
	b.Close()
}
