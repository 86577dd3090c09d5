package console

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A Run lists how long it took from its admission to its finish, and
// nothing while it has not finished.
func TestARunListsHowLongItTookOnceFinished(t *testing.T) {
	t.Parallel()
	end := int64(1_000_2500)
	if got := took(run.Run{CreatedAtMs: 1_000_0000, FinishedAtMs: &end}); got != "2.5s" {
		t.Errorf("a Run finished 2.5 s after its admission took %q, want 2.5s", got)
	}
	if got := took(run.Run{CreatedAtMs: 1_000_0000}); got != "—" {
		t.Errorf("an unfinished Run took %q, want —", got)
	}
}
