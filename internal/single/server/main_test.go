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
// test can wait until each process has really taken part.
func serveHelper() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	concurrency, _ := strconv.Atoi(os.Getenv("QL_TEST_CONCURRENCY"))
	var mu sync.Mutex
	var totals helperTotals
	err := Serve(ctx, Config{
		DataDir:     os.Getenv("QL_DATA_DIR"),
		Cadence:     250 * time.Millisecond,
		Concurrency: concurrency,
		Logger:      slog.New(slog.NewTextHandler(os.Stderr, nil)),
		OnRound: func(s schedule.Summary) {
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
		},
	})
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
