package agent

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/leakcheck"
	"github.com/qinglong/qinglong/internal/worker/journal"
)

// helperEnv makes the test binary a worker process (see helperMain), so
// tests can SIGKILL or SIGTERM a real worker.
const helperEnv = "QL_AGENT_TEST_HELPER"

// probeEnv makes the test binary a command run by a worker (see
// probeMain): it reads its own journal record the moment it starts.
const probeEnv = "AGENT_TEST_PROBE_DIR"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperMain())
	}
	if os.Getenv(probeEnv) != "" {
		os.Exit(probeMain())
	}
	leakcheck.Main(m)
}

// probeMain is a command that, as soon as it runs, reads the state of its
// attempt in the worker's journal and appends it to <dir>/spawns, writes
// its pid to <dir>/pid, then sleeps.
func probeMain() int {
	dir := os.Getenv(probeEnv)
	db, err := sql.Open("sqlite", filepath.Join(dir, "data", journal.FileName)+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var state string
	if err := db.QueryRow(`SELECT state FROM attempts WHERE attempt_id = ?`, os.Getenv("QL_ATTEMPT_ID")).Scan(&state); err != nil {
		state = "missing: " + err.Error()
	}
	db.Close()
	f, err := os.OpenFile(filepath.Join(dir, "spawns"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 1
	}
	fmt.Fprintf(f, "spawned %s\n", state)
	f.Close()
	if err := os.WriteFile(filepath.Join(dir, "pid"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		return 1
	}
	time.Sleep(5 * time.Minute)
	return 0
}

// helperMain runs a worker as `ql worker` would: until SIGINT/SIGTERM,
// logging JSON to stderr, exit 0 after a drain.
func helperMain() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cred, err := ReadCredential(os.Getenv("QL_AGENT_TEST_CREDENTIAL_FILE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	stopTimeout, _ := time.ParseDuration(os.Getenv("QL_AGENT_TEST_STOP_TIMEOUT"))
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	_, err = Run(ctx, Config{
		Server: os.Getenv("QL_AGENT_TEST_SERVER"), Credential: cred, DataDir: os.Getenv("QL_AGENT_TEST_DATA_DIR"),
		Concurrency: 2, StopTimeout: max(stopTimeout, time.Second), PullWait: time.Second,
		BaseEnv: []string{"PATH=/usr/bin:/bin"}, Logger: slog.New(slog.NewJSONHandler(os.Stderr, nil)), Signals: signals,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
