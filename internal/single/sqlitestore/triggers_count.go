package sqlitestore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var (
	_ schedule.TriggerCounter     = (*Store)(nil)
	_ schedule.TriggerSnapshotter = (*Store)(nil)
)

// TriggerCount counts the triggers TriggerList's filters match, in one
// statement, refusing what TriggerList refuses of them.
func (s *Store) TriggerCount(ctx context.Context, p schedule.TriggerListParams) (int, error) {
	var n int
	err := s.read(ctx, "count triggers", func(tx *txn) error {
		var err error
		n, err = countTriggers(ctx, tx, p)
		return err
	})
	return n, err
}

// countTriggers is TriggerCount in the read transaction tx.
func countTriggers(ctx context.Context, tx *txn, p schedule.TriggerListParams) (int, error) {
	if p.ProjectID != "" {
		if err := ids.Validate("projectId", p.ProjectID); err != nil {
			return 0, qlerror.Wrap(qlerror.Invalid, err, "trigger count: give the projectId as the id printed by `ql triggers list`")
		}
	}
	pattern, err := p.SearchPattern()
	if err != nil {
		return 0, err
	}
	inProjects := ""
	if len(p.InProjects) > 0 {
		inProjects = namesJSON(p.InProjects)
	}
	var n int
	err = tx.QueryRowContext(ctx, qTriggersCount, p.ProjectID, pattern, inProjects, specPrefilter(p.Search), p.TitlesOnly).Scan(&n)
	return n, err
}

// TriggerSnapshot runs fn with a reader of one read transaction: in WAL
// mode it reads the database as of its first statement, whatever commits
// after that, so a count and the pages listed beside it agree.
func (s *Store) TriggerSnapshot(ctx context.Context, fn func(schedule.StatusCounter) error) error {
	return s.read(ctx, "read triggers from one snapshot", func(tx *txn) error {
		return fn(snapshotTriggers{tx: tx})
	})
}

// snapshotTriggers lists and counts triggers in one read transaction.
type snapshotTriggers struct{ tx *txn }

func (t snapshotTriggers) TriggerList(ctx context.Context, p schedule.TriggerListParams) ([]schedule.TriggerStatus, string, error) {
	list, next, err := listTriggers(ctx, t.tx, p)
	return list, next, mapErr(err, "list triggers")
}

func (t snapshotTriggers) TriggerCount(ctx context.Context, p schedule.TriggerListParams) (int, error) {
	n, err := countTriggers(ctx, t.tx, p)
	return n, mapErr(err, "count triggers")
}
