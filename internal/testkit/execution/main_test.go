package execution

import (
	"os"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/cmdbuild"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

func TestMain(m *testing.M) { os.Exit(cmdbuild.Run(m, pgtest.Run)) }

// binaries are cmd/ql and cmd/ql-worker, built once for every test: the
// tests drive the real binaries, so signals, exits and process death are
// real.
func binaries(t testing.TB) (ql, worker string) {
	t.Helper()
	return cmdbuild.Binary(t, "ql"), cmdbuild.Binary(t, "ql-worker")
}
