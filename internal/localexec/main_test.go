package localexec

import (
	"testing"

	"go.uber.org/goleak"
)

// Every dispatcher, worker and copy goroutine must be gone when the tests
// end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("database/sql.(*DB).connectionOpener"))
}
