package server

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/retention"
)

// Logs written past the cap between retention's passes wake a pass: with
// a pass due only in an hour, a task writing 300 KB a second against a
// 1 MiB cap has its oldest finished logs removed within seconds, and the
// logs on disk stay near the cap, instead of filling a small disk until
// the next pass.
func TestLogsWrittenPastTheCapWakeRetentionBeforeItsNextPass(t *testing.T) {
	t.Parallel()
	dataDir := installedDir(t)
	publish(t, dataDir, 1, `head -c 300000 /dev/zero | tr '\0' y`)
	srv, err := Start(t.Context(), Config{DataDir: dataDir, Cadence: 250 * time.Millisecond, StopTimeout: testStopTimeout, Concurrency: 2,
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Retention: RetentionConfig{Set: true, Policy: retention.Policy{LogBytes: 1 << 20}, Cadence: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background()) //nolint:errcheck // stopped below; a failed test stops it here
	db := observer(t, dataDir)
	waitFor(t, "eight finished runs", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE state = 'succeeded'`) >= 8
	})
	waitFor(t, "logs removed by retention before its next pass", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM attempts WHERE state = 'succeeded' AND log_path = ''`) > 0
	})
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(LayoutOf(dataDir).Logs)
	if err != nil {
		t.Fatal(err)
	}
	var onDisk int64
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		onDisk += retention.DiskBytes(info.Size())
	}
	// The cap, the quarter of it that wakes a pass, and what a pass
	// cannot remove while it runs: the logs of the commands still
	// writing (two at most) and of the one that just ended.
	if most := int64(1<<20 + 1<<18 + 3*300_000 + 3*retention.LogBlockBytes); onDisk > most {
		t.Fatalf("the logs take %d bytes on disk after the stop, want at most %d", onDisk, most)
	}
}
