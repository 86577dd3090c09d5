package console

import (
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// took is how long a finished Run took from its admission to its finish
// (its queue, attempts and retries' waits included), "—" while it has not
// finished.
func took(r run.Run) string {
	if r.FinishedAtMs == nil {
		return "—"
	}
	return (time.Duration(*r.FinishedAtMs-r.CreatedAtMs) * time.Millisecond).Round(time.Millisecond).String()
}
