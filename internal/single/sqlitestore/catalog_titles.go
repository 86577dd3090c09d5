package sqlitestore

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
func (s *Store) TitlesOf(ctx context.Context, projectID string) (catalog.Titles, error) {
	t, err := titlesOf(ctx, s.readPool(), projectID)
	return t, mapErr(err, "read titles")
}

// TitlesOf reads the titles in the publishing transaction.
func (c *catalogTx) TitlesOf(ctx context.Context, projectID string) (catalog.Titles, error) {
	return titlesOf(ctx, c.tx, projectID)
}

func titlesOf(ctx context.Context, q querier, projectID string) (catalog.Titles, error) {
	t := catalog.Titles{Tasks: map[string]string{}, Triggers: map[string]string{}}
	rows, err := q.QueryContext(ctx, qTitlesOfProject, projectID)
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

// TitlesSave sets each named object's title on its head, in name order,
// at the publish's time. It publishes no revision and leaves every
// schedule row and the occurrence ledger as they are: a title is for
// people, and the scheduler never reads it.
func (c *catalogTx) TitlesSave(ctx context.Context, projectID string, t catalog.Titles) error {
	for _, kind := range []struct {
		name, stmt string
		titles     map[string]string
	}{{"task", qTaskTitleSet, t.Tasks}, {"trigger", qTriggerTitleSet, t.Triggers}} {
		for _, name := range slices.Sorted(maps.Keys(kind.titles)) {
			title := kind.titles[name]
			if err := validate.Title(kind.name+".title", title); err != nil {
				return err
			}
			res, err := c.tx.ExecContext(ctx, kind.stmt, title, c.now, projectID, name)
			if err != nil {
				return err
			}
			if err := exactlyOne(res, qlerror.NotFound, "%s %q does not exist in project %s; publish it before giving it a title", kind.name, name, projectID); err != nil {
				return err
			}
		}
	}
	return nil
}
