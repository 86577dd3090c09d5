package pgstore

import (
	"context"
	"maps"
	"slices"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
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
	t := catalog.Titles{Tasks: map[string]string{}, Triggers: map[string]string{}}
	rows, err := q.Query(ctx, sqlTitlesOfProject, projectID)
	if err != nil {
		return t, err
	}
	defer rows.Close()
	for rows.Next() {
		var kind, name, title string
		if err := rows.Scan(&kind, &name, &title); err != nil {
			return t, err
		}
		if kind == "task" {
			t.Tasks[name] = title
		} else {
			t.Triggers[name] = title
		}
	}
	return t, rows.Err()
}

// TitlesSave sets each named object's title on its head, in name order
// (so two publishes lock the heads they share in one order). It publishes
// no revision and leaves every schedule row, its eligibility and the
// occurrence ledger as they are: a title is for people, and neither
// claim nor commit reads it.
func (t *adminTx) TitlesSave(ctx context.Context, projectID string, titles catalog.Titles) error {
	for _, kind := range []struct {
		name, stmt string
		titles     map[string]string
	}{{"task", sqlTaskTitleSet, titles.Tasks}, {"trigger", sqlTriggerTitleSet, titles.Triggers}} {
		for _, name := range slices.Sorted(maps.Keys(kind.titles)) {
			title := kind.titles[name]
			if err := validate.Title(kind.name+".title", title); err != nil {
				return err
			}
			tag, err := t.tx.Exec(ctx, kind.stmt, title, projectID, name)
			if err != nil {
				return err
			}
			if tag.RowsAffected() != 1 {
				return qlerror.New(qlerror.NotFound, "%s %q does not exist in project %s; publish it before giving it a title", kind.name, name, projectID)
			}
		}
	}
	return nil
}
