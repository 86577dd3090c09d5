package sqlitestore

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/loop"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A notification claim a full disk refused hands out nothing: its attempt
// was not recorded, so a send of it would be retried by every round, each
// as attempt 1, its failure unrecorded too. Once there is room, the row is
// claimed as it was left, its first attempt counted once. The full disk is
// a small tmpfs filled to the last block, the WAL emptied before, so the
// claim's commit must grow it.
func TestANotificationClaimAFullDiskRefusedHandsOutNothing(t *testing.T) {
	ctx := t.Context()
	s, disk := outboxOnASmallDisk(t, "http://127.0.0.1:9/")
	fillDisk(t, disk)
	claim := notify.Claim{Limit: notify.MaxInFlight, Lease: time.Minute, PerChannel: notify.PerChannelInFlight}
	got, err := s.NotificationsClaim(ctx, claim)
	if err == nil || qlerror.CodeOf(err) != qlerror.Unavailable {
		t.Fatalf("a claim on the full disk: %d rows, %v; want the disk-full refusal (unavailable), or the full disk never landed", len(got), err)
	}
	if len(got) != 0 {
		t.Fatalf("a claim the full disk refused (%v) handed out %+v; want nothing to send", err, got)
	}
	if err := os.Remove(filepath.Join(disk, "filler")); err != nil {
		t.Fatal(err)
	}
	got, err = s.NotificationsClaim(ctx, claim)
	if err != nil || len(got) != 1 || got[0].Attempts != 1 {
		t.Fatalf("a claim with room again: %+v, %v; want the row claimed as its first attempt", got, err)
	}
}

// While the disk is full the deliverer sends nothing and counts nothing,
// round after round, and the rounds' failure is said once (loop.Quiet, as
// the server's notification loop says it); with room again the
// notification is sent once and counted once.
func TestAFullDiskSendsNoNotificationAndIsSaidOnce(t *testing.T) {
	var received atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		received.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	s, disk := outboxOnASmallDisk(t, srv.URL)
	var outcomes []string
	d := notify.NewDeliverer(notify.DeliveryConfig{Outbox: s, Observe: func(o string) { outcomes = append(outcomes, o) }})
	var said []string
	quiet := loop.NewQuiet(func(err error, _ int) { said = append(said, err.Error()) })
	fillDisk(t, disk)
	for range 5 {
		if _, err := d.Round(t.Context()); err != nil {
			quiet.Error(err)
		}
	}
	if n := received.Load(); n != 0 || len(outcomes) != 0 || len(said) != 1 {
		t.Fatalf("5 rounds on a full disk: %d sends, outcomes %v, said %q; want none sent or counted, the failure said once", n, outcomes, said)
	}
	if err := os.Remove(filepath.Join(disk, "filler")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Round(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := received.Load(); n != 1 || !slices.Equal(outcomes, []string{notify.OutcomeFailed}) {
		t.Fatalf("a round with room again: %d sends, outcomes %v; want one send, counted failed once", n, outcomes)
	}
}

// outboxOnASmallDisk is a migrated store on an 8 MiB tmpfs (disk) holding
// one due notification to url, its WAL emptied, so that a write once the
// disk is filled must grow it.
func outboxOnASmallDisk(t *testing.T, url string) (*Store, string) {
	t.Helper()
	ctx := t.Context()
	disk := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(disk, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", disk, "tmpfs", 0, "size=8m"); err != nil {
		if errors.Is(err, syscall.EPERM) && os.Getenv("CI") == "" {
			t.Skip("mounting a small disk needs root (CI runs as root)")
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(disk, syscall.MNT_DETACH) })
	clock := newClock()
	s, err := Open(ctx, Config{Path: filepath.Join(disk, "ql.db"), NowMs: clock.NowMs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	p := project.Project{ID: ids.New(), Name: "full", Status: project.Active}
	if _, err := s.ProjectSave(ctx, p); err != nil {
		t.Fatal(err)
	}
	now := clock.NowMs()
	if _, err := s.writer.ExecContext(ctx, `INSERT INTO notification_outbox (id, project_id, rule_key, subject, event, channel_json, payload_json, state,
		attempts, next_attempt_at_ms, created_at_ms, updated_at_ms)
		VALUES (?1, ?2, 'sha256:' || hex(zeroblob(32)), 'hook', 'failed', json_object('name', 'hook', 'kind', 'webhook', 'url', ?4), '{}', 'pending', 0, ?3, ?3, ?3)`,
		ids.New(), p.ID, now-10, url); err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	return s, disk
}
