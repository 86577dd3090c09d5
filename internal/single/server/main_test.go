package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/leakcheck"
)

// helperEnv turns the test binary into a `ql serve` process (see
// serveHelper): the multi-process tests start real, separate processes
// on one data directory without depending on cmd/ being built.
const helperEnv = "QL_LOCALSERVE_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(serveHelper())
	}
	leakcheck.Main(m)
}

// helperTotals is what a helper process reports on stdout when it stops.
type helperTotals struct {
	Admitted int `json:"admitted"`
	Raced    int `json:"raced"`
	Failed   int `json:"failed"`
	Busy     int `json:"busy"`
}

// serveHelper serves QL_DATA_DIR until SIGTERM, then prints its round
// totals as one JSON line. While it serves, it also keeps its running totals
// in the file QL_TEST_TOTALS names (replaced whole after every round), so a
// test can wait until each process has really taken part. With
// QL_TEST_ROUNDS_ONLY set it is no server but a process committing the
// scheduler's rounds to the file beside one (see roundsOnly).
func serveHelper() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	concurrency, _ := strconv.Atoi(os.Getenv("QL_TEST_CONCURRENCY"))
	var mu sync.Mutex
	var totals helperTotals
	onRound := func(s schedule.Summary) {
		mu.Lock()
		defer mu.Unlock()
		totals.Admitted += s.Counts[schedule.Admitted]
		totals.Raced += s.Counts[schedule.Raced]
		// The round the stop cut short fails its remaining commits
		// with the cancelled context, writing nothing.
		if ctx.Err() != nil {
			return
		}
		for _, err := range s.Errors {
			// SQLite's lock is not fair: under sustained writes from
			// the other process a commit can wait out its busy
			// timeout. It writes nothing and the row is taken again
			// next round, so it is counted apart from real failures.
			if qlerror.Is(err, qlerror.Unavailable) {
				totals.Busy++
			} else {
				totals.Failed++
			}
		}
		writeTotals(os.Getenv("QL_TEST_TOTALS"), totals)
	}
	cfg := Config{
		DataDir:     os.Getenv("QL_DATA_DIR"),
		Cadence:     250 * time.Millisecond,
		Concurrency: concurrency,
		Logger:      slog.New(slog.NewTextHandler(os.Stderr, nil)),
		OnRound:     onRound,
	}
	var err error
	if os.Getenv("QL_TEST_ROUNDS_ONLY") != "" {
		err = roundsOnly(ctx, cfg)
	} else {
		err = Serve(ctx, cfg)
	}
	mu.Lock()
	defer mu.Unlock()
	if err := json.NewEncoder(os.Stdout).Encode(totals); err != nil {
		return 1
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return 0
}

// roundsOnly runs the scheduler's rounds on cfg's database, as a server's
// scheduler does, until ctx ends: a process that commits the same
// decisions to the file as the server beside it, which no server lock
// keeps out (any process may write the file), so the two show what the
// store's compare-and-swap alone guarantees across processes.
func roundsOnly(ctx context.Context, cfg Config) error {
	b, err := OpenBackend(ctx, LayoutOf(cfg.DataDir).DB)
	if err != nil {
		return err
	}
	defer b.Close()
	cfg = cfg.WithDefaults()
	for {
		sum, err := schedule.Round(ctx, b.Store, schedule.RoundConfig{PageSize: cfg.PageSize, GraceMs: cfg.Grace.Milliseconds(), Parallel: 1, NewID: ids.New})
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		cfg.OnRound(sum)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(cfg.Cadence):
		}
	}
}

// writeTotals replaces path with totals; a failed write only delays the
// test that waits for it.
func writeTotals(path string, totals helperTotals) {
	b, err := json.Marshal(totals)
	if err != nil {
		return
	}
	tmp := path + ".tmp"
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, path)
	}
}
