package schedule

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A refused backfill names the setting as the CLI and the API both spell
// it, and the store's time as a time, not raw milliseconds.
func TestBackfillRefusalsNameTheSettingAsTheCLIAndTheAPISpellIt(t *testing.T) {
	const now = 1_767_225_600_000 // 2026-01-01T00:00:00Z
	for _, c := range []struct {
		r    BackfillRequest
		want []string
	}{
		{BackfillRequest{FromMs: 2, ToMs: 1}, []string{"--from, fromMs", "--to, toMs"}},
		{BackfillRequest{FromMs: 1, ToMs: now + 1}, []string{"--to, toMs", "2026-01-01T00:00:00Z"}},
		{BackfillRequest{FromMs: 1, ToMs: 2, Max: MaxBackfill + 1}, []string{"--max, max"}},
	} {
		_, err := CheckBackfill(c.r, now)
		if !qlerror.Is(err, qlerror.Invalid) {
			t.Fatalf("backfill %+v: %v, want invalid", c.r, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("backfill %+v: %q lacks %q", c.r, err, w)
			}
		}
	}
}
