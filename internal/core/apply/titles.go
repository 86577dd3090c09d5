package apply

import (
	"context"
	"slices"

	"github.com/qinglong/qinglong/internal/core/catalog"
)

// convergeTitles saves the title of every task and trigger of doc whose
// title differs from the one the store holds, and says so in its result
// ("title" among the fields; an object otherwise unchanged is updated at
// the revision it has). A file leaving a title out clears it, as the
// file is the whole of what it names. Saving a title publishes no
// revision (catalog.Titles), so the trigger keeps its schedule.
func convergeTitles(ctx context.Context, tx catalog.Tx, projectID string, created bool, doc *Document, tasks, triggers []Result) error {
	cur := catalog.Titles{}
	if !created {
		var err error
		if cur, err = tx.TitlesOf(ctx, projectID); err != nil {
			return err
		}
	}
	save := catalog.Titles{Tasks: map[string]string{}, Triggers: map[string]string{}}
	for i, td := range doc.Tasks {
		if cur.Tasks[td.Spec.Name] != td.Title {
			save.Tasks[td.Spec.Name] = td.Title
			titled(&tasks[i])
		}
	}
	for i, tr := range doc.Triggers {
		if cur.Triggers[tr.Spec.Name] != tr.Title {
			save.Triggers[tr.Spec.Name] = tr.Title
			titled(&triggers[i])
		}
	}
	if save.Empty() {
		return nil
	}
	return tx.TitlesSave(ctx, projectID, save)
}

// titled marks r as changing its title; a created object names it among
// what it is created with.
func titled(r *Result) {
	if r.Change == catalog.Unchanged {
		r.Change = catalog.Updated
	}
	if !slices.Contains(r.Fields, "title") {
		r.Fields = append(r.Fields, "title")
	}
}
