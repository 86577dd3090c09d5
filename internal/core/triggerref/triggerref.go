// Package triggerref finds the triggers and projects people name (a
// trigger's name, project/name, a project's name) among the triggers a
// store lists, for the filters of `ql runs list` and the console's Runs
// page. The stores filter by id only; names are resolved above them, the
// same way on every profile and through the listing every database role
// can read.
package triggerref

import (
	"context"
	"strings"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// page is the page size of the lookups.
const page = 500

// Split reads a trigger reference: "project/name" gives both, "name" the
// name alone.
func Split(ref string) (project, name string, qualified bool) {
	if p, n, ok := strings.Cut(ref, "/"); ok {
		return p, n, true
	}
	return "", ref, false
}

// Named returns every trigger called name (of projectID, when given), so
// a caller can tell none from several.
func Named(ctx context.Context, r schedule.StatusReader, projectID, name string) ([]schedule.TriggerStatus, error) {
	var found []schedule.TriggerStatus
	err := each(ctx, r, projectID, func(t schedule.TriggerStatus) bool {
		if t.Name == name {
			found = append(found, t)
		}
		return false
	})
	return found, err
}

// ByID returns the trigger whose id is id (of projectID, when given), and
// whether there is one.
func ByID(ctx context.Context, r schedule.StatusReader, projectID, id string) (schedule.TriggerStatus, bool, error) {
	var found schedule.TriggerStatus
	ok := false
	err := each(ctx, r, projectID, func(t schedule.TriggerStatus) bool {
		if t.TriggerID == id {
			found, ok = t, true
		}
		return ok
	})
	return found, ok, err
}

// IDsByName returns the id of every trigger of projectID by its name.
func IDsByName(ctx context.Context, r schedule.StatusReader, projectID string) (map[string]string, error) {
	out := map[string]string{}
	err := each(ctx, r, projectID, func(t schedule.TriggerStatus) bool {
		out[t.Name] = t.TriggerID
		return false
	})
	return out, err
}

// ProjectID returns the id of the project called name among the projects
// that have triggers ("" when none has that name).
func ProjectID(ctx context.Context, r schedule.StatusReader, name string) (string, error) {
	var id string
	err := each(ctx, r, "", func(t schedule.TriggerStatus) bool {
		if t.ProjectName == name {
			id = t.ProjectID
			return true
		}
		return false
	})
	return id, err
}

// each calls visit for every trigger (of projectID, when given) until
// visit returns true.
func each(ctx context.Context, r schedule.StatusReader, projectID string, visit func(schedule.TriggerStatus) bool) error {
	after := ""
	for {
		list, next, err := r.TriggerList(ctx, schedule.TriggerListParams{ProjectID: projectID, Limit: page, After: after})
		if err != nil {
			return err
		}
		for _, t := range list {
			if visit(t) {
				return nil
			}
		}
		if next == "" {
			return nil
		}
		after = next
	}
}
