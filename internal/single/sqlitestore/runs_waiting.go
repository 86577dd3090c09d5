package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/run"
)

// runWaiting says what in the database keeps the queued Run id from
// starting at the server's next dispatch, nil when nothing there does. Its
// trigger's overlap policy comes first: a Run held behind an earlier one
// does not start whatever slots are free, and the earlier one frees its
// own slot when it finishes. Its project's cap comes next: a Run of a
// project at its maxRunning does not start whatever slots are free. Otherwise, Runs dispatching or running give
// server_busy with their count, but not the limit, which only the serving
// server knows: a reader that knows it keeps the reason only when the
// count reaches it (server.Runs), and one that does not says the count
// with what bounds it. A Run whose attempt the dispatcher does not take
// (one waiting out a retry backoff, which has its own state) has none.
func runWaiting(ctx context.Context, tx *txn, id string) (*run.Waiting, error) {
	var dispatchable bool
	var previous, overlap sql.NullString
	var running, limit, projectRunning int
	var projectID, projectName string
	err := tx.QueryRowContext(ctx, qRunWaiting, id).Scan(&dispatchable, &previous, &overlap, &running, &projectID, &projectName, &limit, &projectRunning)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	case !dispatchable:
		return nil, nil
	case previous.Valid:
		return &run.Waiting{Reason: run.WaitPrevious, PreviousRun: previous.String, Overlap: overlap.String, SingleNode: true}, nil
	case limit > 0 && projectRunning >= limit:
		w := &run.Waiting{Reason: run.WaitProjectBusy, Project: projectName, Running: projectRunning, MaxRunning: limit, SingleNode: true}
		w.Holders, w.MoreHolders, err = slotHolders(ctx, tx, projectID)
		return w, err
	case running > 0:
		w := &run.Waiting{Reason: run.WaitServerBusy, Running: running, SingleNode: true}
		w.Holders, w.MoreHolders, err = slotHolders(ctx, tx, "")
		return w, err
	}
	return nil, nil
}

// archivedWaiting is project_archived for a queued Run of an archived
// project, which the dispatcher holds whatever the slots; nil for a Run of
// an active project.
func archivedWaiting(ctx context.Context, tx *txn, id string) (*run.Waiting, error) {
	var project string
	err := tx.QueryRowContext(ctx, qRunProjectArchived, id).Scan(&project)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &run.Waiting{Reason: run.WaitProjectArchived, Project: project, SingleNode: true}, nil
}

// slotHolders are the triggers whose Runs hold the server's slots (of the
// project projectID, or of every one for ""), most first, at most
// run.MaxSlotHolders of them, and how many other triggers hold one. Reading every group is bounded: only Runs dispatching or
// running hold a slot, and the server never has more of them than its
// --concurrency.
func slotHolders(ctx context.Context, tx *txn, projectID string) ([]run.SlotHolder, int, error) {
	rows, err := tx.QueryContext(ctx, qRunSlotHolders, projectID)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var holders []run.SlotHolder
	more := 0
	for rows.Next() {
		var project, name sql.NullString
		var h run.SlotHolder
		if err := rows.Scan(&h.TriggerID, &project, &name, &h.Runs); err != nil {
			return nil, 0, err
		}
		if len(holders) == run.MaxSlotHolders {
			more++
			continue
		}
		h.Project, h.Trigger = project.String, name.String
		holders = append(holders, h)
	}
	return holders, more, rows.Err()
}
