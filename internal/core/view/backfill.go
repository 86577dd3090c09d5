package view

import "github.com/qinglong/qinglong/internal/core/schedule"

// NothingTaken is why a backfill took no occurrence of a window that holds
// some (schedule.NoneTaken): its reason, the instant it stands on and, in
// English, what to do.
type NothingTaken struct {
	Reason  string `json:"reason"`
	AtMs    int64  `json:"atMs"`
	Message string `json:"message" cmdname:"said"`
}

// NewNothingTaken shapes n; nil when it says nothing.
func NewNothingTaken(n schedule.NoneTaken) *NothingTaken {
	if n.Reason == "" {
		return nil
	}
	return &NothingTaken{Reason: string(n.Reason), AtMs: n.AtMs, Message: n.Message()}
}

// Backfill is the API's answer to a backfill, which its CLI client reads
// back; for a dry run (DryRun) the counts are what the backfill would do
// and RunIDs is empty.
type Backfill struct {
	DryRun      bool     `json:"dryRun"`
	Occurrences int      `json:"occurrences"`
	Admitted    int      `json:"admitted"`
	Existing    int      `json:"existing"`
	Truncated   bool     `json:"truncated"`
	FirstMs     int64    `json:"firstMs"`
	LastMs      int64    `json:"lastMs"`
	RunIDs      []string `json:"runIds"`
	// ExistingRunIDs are the Runs the existing occurrences already had
	// (schedule.BackfillResult.ExistingRunIDs); a server of an earlier
	// build leaves them out.
	ExistingRunIDs []string `json:"existingRunIds"`
	// NothingTaken says why no occurrence was taken, when the window
	// holds some that are not a backfill's; absent otherwise.
	NothingTaken *NothingTaken `json:"nothingTaken,omitempty"`
}

// NewBackfill shapes res, a dry run's when dryRun.
func NewBackfill(dryRun bool, res schedule.BackfillResult) Backfill {
	return Backfill{DryRun: dryRun, Occurrences: res.Occurrences, Admitted: res.Admitted, Existing: res.Existing, Truncated: res.Truncated,
		FirstMs: res.FirstMs, LastMs: res.LastMs, RunIDs: append([]string{}, res.RunIDs...), ExistingRunIDs: append([]string{}, res.ExistingRunIDs...),
		NothingTaken: NewNothingTaken(res.NoneTaken)}
}

// Result is the backfill's result as the store gave it.
func (b Backfill) Result() schedule.BackfillResult {
	out := schedule.BackfillResult{Occurrences: b.Occurrences, Admitted: b.Admitted, Existing: b.Existing, Truncated: b.Truncated,
		FirstMs: b.FirstMs, LastMs: b.LastMs, RunIDs: b.RunIDs, ExistingRunIDs: b.ExistingRunIDs}
	if n := b.NothingTaken; n != nil {
		out.NoneTaken = schedule.NoneTaken{Reason: schedule.NoneReason(n.Reason), AtMs: n.AtMs}
	}
	return out
}
