package sqlitestore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var _ schedule.TriggerCounter = (*Store)(nil)

// TriggerCount counts the triggers TriggerList's filters match, in one
// statement, refusing what TriggerList refuses of them.
func (s *Store) TriggerCount(ctx context.Context, p schedule.TriggerListParams) (int, error) {
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
	err = s.read(ctx, "count triggers", func(tx *txn) error {
		return tx.QueryRowContext(ctx, qTriggersCount, p.ProjectID, pattern, inProjects, specPrefilter(p.Search), p.TitlesOnly).Scan(&n)
	})
	return n, err
}
