package pgstore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// TitlesOf returns the titles of the project's tasks and triggers that
// have one.
func (a *Admin) TitlesOf(ctx context.Context, projectID string) (catalog.Titles, error) {
	t, err := titlesOf(ctx, a.pool, projectID)
	return t, mapErr(err, "reading titles")
}

// TitlesOf reads the titles in the publishing transaction.
func (t *adminTx) TitlesOf(ctx context.Context, projectID string) (catalog.Titles, error) {
	return titlesOf(ctx, t.tx, projectID)
}

func titlesOf(ctx context.Context, q querier, projectID string) (catalog.Titles, error) {
	rows, err := q.Query(ctx, sqlTitlesOfProject, projectID)
	if err != nil {
		return catalog.Titles{}, err
	}
	defer rows.Close()
	return catalog.ScanTitles(rows)
}

// TitlesSave sets each named object's title on its head, in name order
// (so two publishes lock the heads they share in one order). It publishes
// no revision and leaves every schedule row, its eligibility and the
// occurrence ledger as they are: a title is for people, and neither
// claim nor commit reads it.
func (t *adminTx) TitlesSave(ctx context.Context, projectID string, titles catalog.Titles) error {
	return titles.EachTitle(func(kind, name, title string) error {
		stmt := sqlTaskTitleSet
		if kind == catalog.TitleOfTrigger {
			stmt = sqlTriggerTitleSet
		}
		tag, err := t.tx.Exec(ctx, stmt, title, projectID, name)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return qlerror.New(qlerror.NotFound, "%s %q does not exist in project %s; publish it before giving it a title", kind, name, projectID)
		}
		return nil
	})
}
