package peers

import (
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
