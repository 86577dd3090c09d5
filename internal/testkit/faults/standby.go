package faults

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// A streaming standby is built with PostgreSQL's low-level backup API
// (pg_backup_start, copy the data directory, pg_backup_stop, write the
// backup label) rather than pg_basebackup, because the PostgreSQL 18 build
// CI uses ships only initdb, pg_ctl and postgres. One method on every
// version keeps the 15 and 18 gates identical.

// excludedFromBackup are data-directory entries a base backup leaves out
// (see "Making a Base Backup Using the Low Level API"): server runtime
// state, WAL (the standby streams it from the slot) and per-cluster scratch
// space. A directory listed here is recreated empty.
var excludedFromBackup = map[string]bool{
	"postmaster.pid":  true,
	"postmaster.opts": true,
	"backup_label":    true,
	"tablespace_map":  true,
	"standby.signal":  true,
	"recovery.signal": true,
	"pg_wal":          true,
	"pg_replslot":     true,
	"pg_dynshmem":     true,
	"pg_notify":       true,
	"pg_serial":       true,
	"pg_snapshots":    true,
	"pg_stat_tmp":     true,
	"pg_subtrans":     true,
}

// Standby settings.
const (
	// standbyName is the standby's application_name and slot name: the
	// primary's synchronous_standby_names refers to it.
	standbyName = "faultgate_standby"
	// replicationTimeout bounds waiting for the standby to stream, become
	// synchronous, or replay a given position.
	replicationTimeout = 2 * time.Minute
	// pollInterval paces polling of replication state.
	pollInterval = 20 * time.Millisecond
)

// SyncPair is a primary and a hot standby streaming from it, synchronous
// with remote_apply: once a commit returns on the primary, the standby has
// replayed it and a read there sees it.
type SyncPair struct {
	Primary *pgtest.Srv
	Standby *pgtest.Srv
}

// StartSyncPair starts a primary with extraConf, builds a standby from it
// and makes it synchronous (remote_apply). Both servers are stopped on
// cleanup; either may be stopped earlier by the test.
func StartSyncPair(t testing.TB, extraConf map[string]string) *SyncPair {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*replicationTimeout)
	defer cancel()
	primary, err := pgtest.StartServer(ctx, pgtest.Options{ExtraConf: extraConf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopServer(t, primary) })
	dataDir := filepath.Join(pgtest.TempDir(t), "standby")
	if err := baseBackup(ctx, primary, dataDir); err != nil {
		t.Fatal(err)
	}
	conf := map[string]string{
		"primary_conninfo":  fmt.Sprintf("host=127.0.0.1 port=%d user=postgres application_name=%s", primary.Port(), standbyName),
		"primary_slot_name": standbyName,
		"hot_standby":       "on",
	}
	for name, value := range extraConf {
		conf[name] = value
	}
	standby, err := pgtest.StartServer(ctx, pgtest.Options{
		BinDir:     primary.BinDir(),
		DataDir:    dataDir,
		SkipInitdb: true,
		ExtraConf:  conf,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopServer(t, standby) })
	if err := makeSynchronous(ctx, primary); err != nil {
		t.Fatal(err)
	}
	return &SyncPair{Primary: primary, Standby: standby}
}

func stopServer(t testing.TB, s *pgtest.Srv) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.Stop(ctx); err != nil {
		t.Errorf("stopping the server on port %d: %v", s.Port(), err)
	}
}

// baseBackup copies primary's cluster into dataDir as a standby: a
// replication slot first, so the primary keeps every WAL segment from the
// backup's start until the standby has streamed it.
func baseBackup(ctx context.Context, primary *pgtest.Srv, dataDir string) error {
	conn, err := pgx.Connect(ctx, primary.SuperuserURL("postgres"))
	if err != nil {
		return fmt.Errorf("faults: base backup: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "SELECT pg_create_physical_replication_slot($1, true)", standbyName); err != nil {
		return fmt.Errorf("faults: replication slot: %w", err)
	}
	// The backup belongs to this session: pg_backup_stop must run on the
	// same connection.
	if _, err := conn.Exec(ctx, "SELECT pg_backup_start($1, true)", "faults standby"); err != nil {
		return fmt.Errorf("faults: pg_backup_start: %w", err)
	}
	copyErr := copyDataDir(primary.DataDir(), dataDir)
	var label, spcmap string
	if err := conn.QueryRow(ctx, "SELECT labelfile, spcmapfile FROM pg_backup_stop(false)").Scan(&label, &spcmap); err != nil {
		return errors.Join(copyErr, fmt.Errorf("faults: pg_backup_stop: %w", err))
	}
	if copyErr != nil {
		return copyErr
	}
	files := map[string]string{"backup_label": label, "standby.signal": ""}
	if spcmap != "" {
		files["tablespace_map"] = spcmap
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dataDir, name), []byte(content), 0o600); err != nil {
			return fmt.Errorf("faults: base backup: %w", err)
		}
	}
	return nil
}

// copyDataDir copies a live cluster. Files may change or vanish while it
// runs: torn pages are repaired by WAL replay from the backup's start
// (full_page_writes), and a vanished file was temporary.
func copyDataDir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		top := filepath.Dir(rel) == "."
		switch {
		case d.IsDir():
			if err := os.MkdirAll(target, 0o700); err != nil {
				return err
			}
			if top && excludedFromBackup[rel] {
				return fs.SkipDir
			}
			if rel == "." {
				return nil
			}
			if d.Name() == "pgsql_tmp" {
				return fs.SkipDir
			}
			return nil
		case top && excludedFromBackup[rel], d.Name() == "pg_internal.init":
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("faults: %s: not a regular file (tablespaces are not supported)", path)
		}
		err = copyFile(path, target)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close() //nolint:errcheck // read only; the copy checks the written file's Close
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// makeSynchronous waits for the standby to stream, then makes the primary
// wait for it to apply every commit. Set only now: with the standby named
// before it exists, every commit on the primary would hang.
func makeSynchronous(ctx context.Context, primary *pgtest.Srv) error {
	conn, err := pgx.Connect(ctx, primary.SuperuserURL("postgres"))
	if err != nil {
		return fmt.Errorf("faults: synchronous standby: %w", err)
	}
	defer conn.Close(context.Background())
	for _, sql := range []string{
		"ALTER SYSTEM SET synchronous_standby_names = '" + standbyName + "'",
		"ALTER SYSTEM SET synchronous_commit = 'remote_apply'",
		"SELECT pg_reload_conf()",
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return fmt.Errorf("faults: %s: %w", sql, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, replicationTimeout)
	defer cancel()
	for {
		var state, syncState string
		err := conn.QueryRow(ctx,
			"SELECT state, sync_state FROM pg_stat_replication WHERE application_name = $1", standbyName).
			Scan(&state, &syncState)
		if err == nil && state == "streaming" && syncState == "sync" {
			return nil
		}
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("faults: waiting for the standby: %w", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("faults: the standby never became a streaming synchronous standby (state %q, sync_state %q): %w",
				state, syncState, context.Cause(ctx))
		case <-time.After(pollInterval):
		}
	}
}

// Promotion reports a fail-over: the old primary's timeline, the new one's,
// and the new primary's clock right after promotion.
type Promotion struct {
	TimelineBefore, TimelineAfter int64
	PromotedAtMs                  int64
}

// FenceAndPromote stops the primary (so it can accept nothing more) and
// promotes the standby, waiting for the promotion to finish.
func (p *SyncPair) FenceAndPromote(ctx context.Context) (Promotion, error) {
	var pr Promotion
	var err error
	if pr.TimelineBefore, err = currentTimeline(ctx, p.Primary); err != nil {
		return pr, err
	}
	if err := p.Primary.Stop(ctx); err != nil {
		return pr, fmt.Errorf("faults: fencing the primary: %w", err)
	}
	conn, err := pgx.Connect(ctx, p.Standby.SuperuserURL("postgres"))
	if err != nil {
		return pr, fmt.Errorf("faults: promotion: %w", err)
	}
	defer conn.Close(context.Background())
	var promoted bool
	if err := conn.QueryRow(ctx, "SELECT pg_promote(true, $1)", int(replicationTimeout.Seconds())).Scan(&promoted); err != nil {
		return pr, fmt.Errorf("faults: pg_promote: %w", err)
	}
	if !promoted {
		return pr, fmt.Errorf("faults: pg_promote did not finish within %v", replicationTimeout)
	}
	// The cluster's clock expression (pgstore.ClockMsSQL), written out:
	// pgstore's tests import this package, so it cannot import pgstore.
	if err := conn.QueryRow(ctx, "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint").Scan(&pr.PromotedAtMs); err != nil {
		return pr, fmt.Errorf("faults: promotion time: %w", err)
	}
	if pr.TimelineAfter, err = currentTimeline(ctx, p.Standby); err != nil {
		return pr, err
	}
	return pr, nil
}

// currentTimeline reads the timeline a primary writes WAL on: the first
// eight hex digits of the current WAL segment's file name.
func currentTimeline(ctx context.Context, s *pgtest.Srv) (int64, error) {
	conn, err := pgx.Connect(ctx, s.SuperuserURL("postgres"))
	if err != nil {
		return 0, fmt.Errorf("faults: timeline: %w", err)
	}
	defer conn.Close(context.Background())
	var walFile string
	if err := conn.QueryRow(ctx, "SELECT pg_walfile_name(pg_current_wal_lsn())").Scan(&walFile); err != nil {
		return 0, fmt.Errorf("faults: timeline: %w", err)
	}
	tli, err := strconv.ParseInt(walFile[:8], 16, 64)
	if err != nil {
		return 0, fmt.Errorf("faults: timeline of WAL file %q: %w", walFile, err)
	}
	return tli, nil
}
