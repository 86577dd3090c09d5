package run

import (
	"context"
	"fmt"

	"github.com/qinglong/qinglong/internal/core/plural"
)

// QueuedCountCap bounds CountQueued: one page of the listing. A pause
// that leaves this many queued says "500 or more", which is all a person
// needs before dropping them.
const QueuedCountCap = MaxPageSize

// CountQueued is how many Runs of the listing's filter p (a project, a
// trigger) are queued, up to QueuedCountCap: what a pause, which stops
// admissions and not the Runs already admitted, still leaves to start.
func CountQueued(ctx context.Context, r Reader, p ListParams) (int, error) {
	p.State, p.Limit = Queued, QueuedCountCap
	list, _, err := r.RunList(ctx, p)
	return len(list), err
}

// QueuedBeforeThePause says that the n queued Runs a pause left still
// start, and the command (cancel, as the binary's invocation) that drops
// them; "" for none.
func QueuedBeforeThePause(n int, cancel string) string {
	switch {
	case n == 0:
		return ""
	case n == 1:
		return fmt.Sprintf("1 Run queued before the pause still starts; `%s` drops it", cancel)
	case n >= QueuedCountCap:
		return fmt.Sprintf("%d or more Runs queued before the pause still start; `%s` drops them", n, cancel)
	}
	return fmt.Sprintf("%s queued before the pause still start; `%s` drops them", plural.Count(n, "Run", "Runs"), cancel)
}
