package singlecli

import (
	"os"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/leakcheck"
)

// envRunCLI makes the test binary act as ql, so a test can run a command
// in a process of its own: as the binary does, signals included (a served
// one drains on SIGTERM).
const envRunCLI = "QL_LOCALCLI_TEST_RUN_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(envRunCLI) == "1" {
		cli.Run(Options("ql"))
	}
	leakcheck.Main(m)
}
