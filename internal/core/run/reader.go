package run

import "context"

// Page limits for listings.
const (
	DefaultPageSize = 50
	MaxPageSize     = 500
)

// ListParams filters and pages a run listing. Runs are listed newest first
// (by id, which is a UUIDv7 and so time-ordered); After is the last id of
// the previous page.
type ListParams struct {
	ProjectID string
	TriggerID string
	State     State
	Limit     int
	After     string
}

// Reader is the read contract the HTTP API and the CLI use.
type Reader interface {
	// RunList returns one page and the cursor of the next ("" when done).
	RunList(ctx context.Context, p ListParams) (runs []Run, next string, err error)
	// RunGet returns a run with its attempts and events, or NotFound.
	RunGet(ctx context.Context, id string) (Detail, error)
}
