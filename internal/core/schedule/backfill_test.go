package schedule

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A refused backfill names the setting as the CLI and the API both spell
// it, and the store's time as a time, not raw milliseconds; its reason
// lets the console say it in the page's language.
func TestBackfillRefusalsNameTheSettingAsTheCLIAndTheAPISpellIt(t *testing.T) {
	const now = 1_767_225_600_000 // 2026-01-01T00:00:00Z
	for _, c := range []struct {
		r      BackfillRequest
		want   []string
		reason qlerror.Reason
	}{
		{BackfillRequest{FromMs: 2, ToMs: 1}, []string{"--from, fromMs", "--to, toMs"}, RefusalBackfillReversed},
		{BackfillRequest{FromMs: 1, ToMs: now + 1}, []string{"--to, toMs", "2026-01-01T00:00:00Z"}, RefusalBackfillFuture},
		{BackfillRequest{FromMs: now + 1, ToMs: now + 2}, []string{"starts in the future"}, RefusalBackfillFuture},
		{BackfillRequest{FromMs: 1, ToMs: 2, Max: MaxBackfill + 1}, []string{"--max, max"}, RefusalBackfillCap},
	} {
		_, err := CheckBackfill(c.r, now)
		if !qlerror.Is(err, qlerror.Invalid) || qlerror.ReasonOf(err) != c.reason {
			t.Fatalf("backfill %+v: %v (reason %q), want invalid because %s", c.r, err, qlerror.ReasonOf(err), c.reason)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("backfill %+v: %q lacks %q", c.r, err, w)
			}
		}
	}
}
