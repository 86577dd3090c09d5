package sqlitestore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// TitlesOf returns the titles of the project's tasks and triggers that
// have one.
func (s *Store) TitlesOf(ctx context.Context, projectID string) (catalog.Titles, error) {
	t, err := titlesOf(ctx, s.readPool(), projectID)
	return t, mapErr(err, "read titles")
}

// TitlesOf reads the titles in the publishing transaction.
func (c *catalogTx) TitlesOf(ctx context.Context, projectID string) (catalog.Titles, error) {
	return titlesOf(ctx, c.tx, projectID)
}

func titlesOf(ctx context.Context, q querier, projectID string) (catalog.Titles, error) {
	rows, err := q.QueryContext(ctx, qTitlesOfProject, projectID)
	if err != nil {
		return catalog.Titles{}, err
	}
	defer rows.Close()
	return catalog.ScanTitles(rows)
}

// TitlesSave sets each named object's title on its head, in name order,
// at the publish's time. It publishes no revision and leaves every
// schedule row and the occurrence ledger as they are: a title is for
// people, and the scheduler never reads it.
func (c *catalogTx) TitlesSave(ctx context.Context, projectID string, t catalog.Titles) error {
	return t.EachTitle(func(kind, name, title string) error {
		stmt := qTaskTitleSet
		if kind == catalog.TitleOfTrigger {
			stmt = qTriggerTitleSet
		}
		res, err := c.tx.ExecContext(ctx, stmt, title, c.now, projectID, name)
		if err != nil {
			return err
		}
		return exactlyOne(res, qlerror.NotFound, "%s %q does not exist in project %s; publish it before giving it a title", kind, name, projectID)
	})
}
