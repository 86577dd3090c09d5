package faultgate

import (
	"testing"

	"github.com/qinglong/qinglong/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
