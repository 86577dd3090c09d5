package server

import (
	"context"
	"io"
	"log/slog"
	"math"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
)

// qinglong_data_dir_free_bytes is what statfs says the file system holding
// the data directory has free for an unprivileged user.
func TestTheDataDirFreeBytesIsTheFileSystemsFreeSpace(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	srv, err := startQuiet(t, Config{DataDir: dir, MetricsAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background()) //nolint:errcheck // the test's end stops it
	m := metricstest.Scrape(t, "http://"+srv.MetricsAddr()+"/metrics")
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	want := float64(st.Bavail) * float64(st.Bsize)
	// Other processes write to the same disk between the two reads.
	if got := m.Value(t, "qinglong_data_dir_free_bytes"); math.Abs(got-want) > 64<<20 {
		t.Fatalf("qinglong_data_dir_free_bytes %.0f, statfs says %.0f free", got, want)
	}
}

// A single node exports its database's size, at least its file's, and
// its run logs' as the log cap counts them: each file of the logs
// directory in whole blocks. Logs only grow here (retention is off), so
// the scrape lies between two counts of the files taken around it.
func TestASingleNodeExportsItsDatabaseAndRunLogsSizes(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	publish(t, dir, 1, "echo hello")
	srv, err := startQuiet(t, Config{DataDir: dir, MetricsAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond, Concurrency: 1,
		Retention: RetentionConfig{Set: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background()) //nolint:errcheck // the test's end stops it
	db := observer(t, dir)
	waitFor(t, "two finished runs", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE state = 'succeeded'`) >= 2
	})
	onDisk := func() float64 {
		entries, err := os.ReadDir(LayoutOf(dir).Logs)
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, e := range entries {
			fi, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			sum += retention.DiskBytes(fi.Size())
		}
		return float64(sum)
	}
	low := onDisk()
	m := metricstest.Scrape(t, "http://"+srv.MetricsAddr()+"/metrics")
	high := onDisk()
	if got := m.Value(t, "qinglong_run_logs_size_bytes"); low == 0 || got < low || got > high {
		t.Fatalf("qinglong_run_logs_size_bytes %.0f; the logs directory held %.0f bytes before the scrape and %.0f after", got, low, high)
	}
	file, err := os.Stat(LayoutOf(dir).DB)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Value(t, "qinglong_database_size_bytes"); got < float64(file.Size()) {
		t.Fatalf("qinglong_database_size_bytes %.0f, below the database file's %d bytes", got, file.Size())
	}
}

// A retention pass's deletions are counted by what it deleted, and the
// end of the last pass that completed is exported, 0 before the first.
func TestARetentionPassCountsWhatItDeleted(t *testing.T) {
	t.Parallel()
	dataDir := installedDir(t)
	publish(t, dataDir, 2, "echo hello")
	started := time.Now()
	srv, err := Start(t.Context(), Config{DataDir: dataDir, MetricsAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond, StopTimeout: testStopTimeout, Concurrency: 2,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Retention: RetentionConfig{Set: true, Policy: retention.Policy{RunsAge: 30 * retention.Day}, Cadence: 250 * time.Millisecond,
			Options: retention.Options{BatchSize: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background()) //nolint:errcheck // the test's end stops it
	url := "http://" + srv.MetricsAddr() + "/metrics"
	db := observer(t, dataDir)
	waitFor(t, "four finished runs", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE state = 'succeeded'`) >= 4
	})
	aged := ageFinishedRuns(t, dataDir, 40*retention.Day)
	// Each Run of echo succeeded at its one attempt, so the aged attempts
	// count the aged Runs; read after the aging, the Runs table would
	// already miss those a pass deleted meanwhile.
	runs := len(aged)
	var m metricstest.Families
	waitFor(t, "the aged runs counted deleted", 30*time.Second, func() bool {
		m = metricstest.Scrape(t, url)
		return m.Value(t, "qinglong_retention_deleted_total", "kind", "runs") >= float64(runs)
	})
	for kind, want := range map[string]int{"runs": runs, "attempts": len(aged), "logs": len(aged), "notifications": 0} {
		if got := m.Value(t, "qinglong_retention_deleted_total", "kind", kind); got != float64(want) {
			t.Errorf("qinglong_retention_deleted_total{kind=%q} %.0f, want %d", kind, got, want)
		}
	}
	if last := m.Value(t, "qinglong_retention_last_pass_timestamp_seconds"); last < float64(started.Unix()) || last > float64(time.Now().Unix()+1) {
		t.Fatalf("qinglong_retention_last_pass_timestamp_seconds %.0f, want a time since the server started (%d)", last, started.Unix())
	}
}
