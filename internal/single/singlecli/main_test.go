package singlecli

import (
	"context"
	"os"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/leakcheck"
)

// envRunCLI makes the test binary act as ql, so a test can run a command
// in a process of its own.
const envRunCLI = "QL_LOCALCLI_TEST_RUN_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(envRunCLI) == "1" {
		os.Exit(cli.Main(context.Background(), Options("ql"), os.Args[1:], os.Stdout, os.Stderr))
	}
	leakcheck.Main(m)
}
