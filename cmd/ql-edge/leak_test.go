package main

import (
	"os"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/leakcheck"
)

// runMain makes the test binary run as ql-edge itself, for a test that
// needs the real process: its signals, its standard streams, its exit.
const runMain = "QINGLONG_EDGE_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMain) == "1" {
		main()
	}
	leakcheck.Main(m)
}
