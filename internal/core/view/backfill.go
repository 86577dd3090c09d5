package view

import "github.com/qinglong/qinglong/internal/core/schedule"

// NothingTaken is why a backfill took no occurrence of a window that holds
// some (schedule.NoneTaken): its reason, the instant it stands on and, in
// English, what to do.
type NothingTaken struct {
	Reason  string `json:"reason"`
	AtMs    int64  `json:"atMs"`
	Message string `json:"message"`
}

// NewNothingTaken shapes n; nil when it says nothing.
func NewNothingTaken(n schedule.NoneTaken) *NothingTaken {
	if n.Reason == "" {
		return nil
	}
	return &NothingTaken{Reason: string(n.Reason), AtMs: n.AtMs, Message: n.Message()}
}
