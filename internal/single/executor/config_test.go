package executor

import (
	"fmt"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A setting out of range names the flag of ql serve that sets it, as
// typed, with its value and range, like serve's other settings.
func TestASettingOutOfRangeNamesServesFlag(t *testing.T) {
	t.Parallel()
	ok := Config{Concurrency: 1, LogCapBytes: MinLogCapBytes, LogDir: t.TempDir()}
	tooMany, tooSmall := ok, ok
	tooMany.Concurrency = MaxConcurrency + 1
	tooSmall.LogCapBytes = 512
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{tooMany, fmt.Sprintf("--concurrency %d is outside 1–%d", MaxConcurrency+1, MaxConcurrency)},
		{tooSmall, "--log-max-bytes 512 B is outside 1 KiB–1 GiB"},
	} {
		err := c.cfg.Validate()
		if !qlerror.Is(err, qlerror.Invalid) || err.Error() != c.want {
			t.Errorf("validate: %v; want %q", err, c.want)
		}
	}
}
