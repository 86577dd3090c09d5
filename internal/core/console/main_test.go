package console

import (
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }
