package pgstore

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// minParallel is how many of this package's tests run at once at least,
// unless -parallel says otherwise. They spend most of their time waiting
// for PostgreSQL (a database copied from the template, its roles
// installed, and dropped, each with fsync on), not on this process's CPU:
// two at a time, -parallel's default on a two-core machine, kept the
// package over ten minutes there, near the test timeout under load. Each
// test has its own database and roles, so more at once changes no
// outcome; the shared server's max_connections has room for them (see
// pgtest's poolMaxConns). Not more: eight at once on two loaded cores
// once ran out the one-second leases the worker tests granted. They grant
// testLease now and end a lease in database time where that is the point
// (lapse), but the tests timing renewals (the 2 s lease of
// TestAWorkerIgnoringAStopIsNoLongerRenewedAfterTheLeaseAndKillGrace, the
// minute of the late-result tests) still want their steps on time.
const minParallel = 4

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(max(minParallel, runtime.GOMAXPROCS(0)))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	pgtest.Main(m)
}
