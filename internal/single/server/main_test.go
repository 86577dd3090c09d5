package server

import (
	"context"
	"database/sql"
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

// helperCadence is a helper process's scheduler cadence.
const helperCadence = 250 * time.Millisecond

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
		Cadence:     helperCadence,
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
// store's compare-and-swap alone guarantees across processes. It wakes as
// the server does (planWake): at once after a full page with progress,
// else at the next due instant, the cadence the ceiling. Waking on the
// cadence alone, it took an occurrence only when its round happened to
// fall inside the few milliseconds between the server's wake at the due
// instant and its commit, so whether it ever admitted or raced was luck.
//
// Once the file QL_TEST_HOLD names exists, the next page it takes with
// tickets is held, decided but not committed, until another process has
// admitted a Run since the take (see holdUntilOvertaken): the commit that
// follows is one whose snapshot another process's commit made stale, every
// time, where free-running rounds give that only when the timing allows.
func roundsOnly(ctx context.Context, cfg Config) error {
	b, err := OpenBackend(ctx, LayoutOf(cfg.DataDir).DB, nil)
	if err != nil {
		return err
	}
	defer b.Close()
	cfg = cfg.WithDefaults()
	holdFile, held := os.Getenv("QL_TEST_HOLD"), false
	for {
		page, err := schedule.TakePage(ctx, b.Store, schedule.RoundConfig{PageSize: cfg.PageSize, GraceMs: cfg.Grace.Milliseconds(), Parallel: 1, NewIDs: ids.Fill})
		if err == nil && !held && holdFile != "" && page.Taken() > 0 && exists(holdFile) {
			held = true
			err = holdUntilOvertaken(ctx, LayoutOf(cfg.DataDir).DB)
		}
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		sum := page.Commit(ctx, b.Store)
		cfg.OnRound(sum)
		wait := time.Duration(0)
		if !sum.StartNextAtOnce(cfg.PageSize) {
			wait = cfg.Cadence
			if !sum.Full(cfg.PageSize) {
				wait = sum.Next.Wait(time.Now(), cfg.Cadence, wakeMargin)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// holdUntilOvertaken returns once the runs table has grown past what it
// held when called, that is once another process committed an admission
// after the caller's take. Every trigger of the test fires at every second
// and fits one page, so such a commit moved at least one row the caller
// took, and the caller's commit of it must lose its compare-and-swap.
func holdUntilOvertaken(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)")
	if err != nil {
		return err
	}
	defer db.Close()
	runs := func() (n int, err error) {
		err = db.QueryRowContext(ctx, `SELECT count(*) FROM runs`).Scan(&n)
		return n, err
	}
	taken, err := runs()
	for err == nil {
		var now int
		if now, err = runs(); err != nil || now > taken {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return err
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
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
