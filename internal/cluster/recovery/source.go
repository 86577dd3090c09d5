package recovery

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/run"
)

// MaxPageSize bounds how many Runs one page may examine.
const MaxPageSize = 128

// Candidate is an unfinished Run in a shape no rule moves on.
type Candidate struct {
	RunID     string
	ProjectID string
	TriggerID string // "" for a Run no trigger admitted
	State     run.State
	// Reason is a stable code naming the first drift found, e.g.
	// "run_unleased", "attempt_missing", "attempt_executor".
	Reason string
	// AttemptNumber is the latest Attempt's number, 0 when there is none.
	AttemptNumber int64
	UpdatedAtMs   int64
}

// PageParams select one page, in Run id order.
type PageParams struct {
	// HorizonMs bounds the scan to Runs created at or before it. Zero on
	// the first page: the source samples the database clock and returns the
	// horizon it used, which the gate passes back for every later page.
	HorizonMs int64
	// After is the last Run id the previous page examined ("" = start).
	After string
	// Limit is how many unfinished Runs the page examines (1–128).
	Limit int
}

// Page is one page of the scan.
type Page struct {
	Candidates []Candidate
	HorizonMs  int64
	// Examined is how many unfinished Runs the page looked at, normal
	// ones included.
	Examined int
	// Next is the id to continue after; "" when the scan is complete.
	Next string
}

// Source pages through unfinished Runs and judges each one. The rule of
// normal shapes lives in the source (the adapter's SQL), where the full
// Run and Attempt shape is visible.
type Source interface {
	RecoveryPage(ctx context.Context, p PageParams) (Page, error)
}
