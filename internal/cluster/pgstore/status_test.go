package pgstore

import (
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

func TestRuntimeConfigNamesTheFieldAndRange(t *testing.T) {
	t.Parallel()
	cases := map[string]RuntimeConfig{
		"runtime owner":       {Owner: "has space", Lease: DefaultLease},
		"claim lease 500ms":   {Owner: "a", Lease: 500 * time.Millisecond},
		"claim lease 1m1s":    {Owner: "a", Lease: 61 * time.Second},
		"runtime pool size 1": {Owner: "a", MaxConns: 1},
		"role prefix":         {Owner: "a", RolePrefix: "Bad-Prefix"},
	}
	for want, cfg := range cases {
		err := cfg.WithDefaults().Validate()
		if !qlerror.Is(err, qlerror.Invalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("config %+v: %v; want an invalid error mentioning %q", cfg, err, want)
		}
	}
	if err := (RuntimeConfig{Owner: "replica-1"}).WithDefaults().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
}
