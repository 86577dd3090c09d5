package replica

import (
	"context"
	"log/slog"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// Codes of giving back the claims a lost activation left held.
const (
	CodeClaimsGivenBack = "serve.claims_given_back"
	CodeGiveBackFailed  = "serve.give_back_failed"
)

// giveBackCarried gives back, through a fresh activation's pool, the
// claims the lost activation's scheduler could not settle
// (scheduler.Coordinator.Held): the pages it had claimed but not committed
// when the database went away. Each such row would otherwise wait out its
// lease before any replica, this one included, could claim it again; an
// outage shorter than the lease would then delay those occurrences past
// the outage itself. The release is fenced per row by the whole claim, so
// a claim that expired and was taken over meanwhile, or whose commit did
// land, is left as it is. A failure is logged and changes nothing else:
// the claims then expire as they would have.
func (r *replica) giveBackCarried(ctx context.Context, rt *pgstore.Runtime, carried []schedule.Ticket) {
	if len(carried) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, r.s.Coordinator.StopTimeout)
	defer cancel()
	released, err := rt.ScheduleRelease(ctx, carried)
	if r.metrics != nil {
		failed := 0
		if err != nil {
			failed = len(carried)
		}
		r.metrics.ClaimsGivenBack(released, failed)
	}
	if err != nil {
		r.log.Warn("could not give back the claims the lost activation held; they expire with their lease",
			append([]any{slog.String("code", CodeGiveBackFailed), slog.Int("tickets", len(carried))}, schedule.ErrorAttrs(err)...)...)
		return
	}
	r.log.Info("gave back the claims the lost activation held", slog.String("code", CodeClaimsGivenBack),
		slog.Int("tickets", len(carried)), slog.Int("rows", released))
}
