package process

import (
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/leakcheck"
)

// Every dispatcher, worker and copy goroutine must be gone when the tests
// end.
func TestMain(m *testing.M) {
	leakcheck.Main(m)
}
