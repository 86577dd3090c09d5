package schedule

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/trigger"
)

// TriggerStatus is a trigger's current revision with its schedule state.
type TriggerStatus struct {
	ProjectID   string
	ProjectName string
	TriggerID   string
	Name        string
	Revision    int64
	Enabled     bool
	// Paused: the schedule is paused (no occurrence runs until resumed).
	Paused       bool
	Cron         trigger.Cron
	TaskID       string
	TaskName     string
	TaskRevision int64
	NextFireAtMs *int64
	// NextDueAtMs is the cursor's jittered due time; nil for an
	// uninitialised row and for an ended one (a cursor with no due time:
	// the trigger's endAt has passed).
	NextDueAtMs       *int64
	LastScheduledAtMs *int64
	StateVersion      int64
	ClaimOwner        *string // cluster only
	ClaimExpiresAtMs  *int64  // cluster only
}

// TriggerListParams pages a trigger listing ordered by trigger id (UUIDv7,
// so creation order); After is the last trigger id of the previous page.
type TriggerListParams struct {
	ProjectID string
	Limit     int
	After     string
}

// StatusReader lists triggers with their schedule state.
type StatusReader interface {
	TriggerList(ctx context.Context, p TriggerListParams) (list []TriggerStatus, next string, err error)
}
