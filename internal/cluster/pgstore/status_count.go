package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var (
	_ schedule.TriggerCounter     = (*Runtime)(nil)
	_ schedule.TriggerSnapshotter = (*Runtime)(nil)
)

// TriggerCount counts the triggers TriggerList's filters match, in one
// statement, refusing what TriggerList refuses of them.
func (r *Runtime) TriggerCount(ctx context.Context, p schedule.TriggerListParams) (int, error) {
	return countTriggers(ctx, r.pool, p)
}

// countTriggers is TriggerCount through q: the pool, or a snapshot's
// transaction.
func countTriggers(ctx context.Context, q querier, p schedule.TriggerListParams) (int, error) {
	var projectID *string
	if p.ProjectID != "" {
		if err := ids.Validate("projectId", p.ProjectID); err != nil {
			return 0, qlerror.Wrap(qlerror.Invalid, err, "trigger count")
		}
		projectID = &p.ProjectID
	}
	var search *string
	pattern, err := p.SearchPattern()
	if err != nil {
		return 0, err
	}
	if pattern != "" {
		search = &pattern
	}
	var inProjects []string
	if len(p.InProjects) > 0 {
		inProjects = p.InProjects
	}
	var n int
	if err := q.QueryRow(ctx, sqlTriggerCount, projectID, search, inProjects, p.TitlesOnly).Scan(&n); err != nil {
		return 0, mapErr(err, "counting triggers")
	}
	return n, nil
}

// TriggerSnapshot runs fn with a reader of one REPEATABLE READ, read-only
// transaction: every statement in it sees the snapshot its first one
// took, whatever commits after that, so a count and the pages listed
// beside it agree.
func (r *Runtime) TriggerSnapshot(ctx context.Context, fn func(schedule.StatusCounter) error) error {
	err := runTx(ctx, r.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		return fn(snapshotTriggers{tx: tx})
	})
	return mapErr(err, "reading triggers from one snapshot")
}

// snapshotTriggers lists and counts triggers in one transaction.
type snapshotTriggers struct{ tx pgx.Tx }

func (t snapshotTriggers) TriggerList(ctx context.Context, p schedule.TriggerListParams) ([]schedule.TriggerStatus, string, error) {
	return listTriggers(ctx, t.tx, p)
}

func (t snapshotTriggers) TriggerCount(ctx context.Context, p schedule.TriggerListParams) (int, error) {
	return countTriggers(ctx, t.tx, p)
}
