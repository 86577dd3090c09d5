package view

import (
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
)

// The answers of the API's writes that the CLI prints with -o json too:
// one type each, so a script reads the same document from the API, from
// `ql … --api-url` and from `ql` on the database.

// RunCancel is a cancel's answer: the Run as the cancel left it, and what
// this request did (NewCancelEffect), which its state alone does not tell.
type RunCancel struct {
	Run    Run    `json:"run"`
	Effect string `json:"effect"`
}

// NewRunCancel is the answer of a cancel that left r as it is (eff).
func NewRunCancel(r run.Run, eff run.CancelEffect) RunCancel {
	return RunCancel{Run: NewRun(r), Effect: NewCancelEffect(r, eff)}
}

// TriggerEnable is a trigger's state after an enable or disable.
type TriggerEnable struct {
	TriggerID string `json:"triggerId"`
	Changed   bool   `json:"changed"`
	Enabled   bool   `json:"enabled"`
	Revision  int64  `json:"revision"`
	// AtMs is when the current revision was published.
	AtMs int64 `json:"atMs"`
}

// NewTriggerEnable is the answer of an enable or disable of trigger id.
func NewTriggerEnable(id string, res catalog.EnableResult) TriggerEnable {
	return TriggerEnable{TriggerID: id, Changed: res.Changed, Enabled: res.Enabled, Revision: res.Revision, AtMs: res.CreatedAtMs}
}

// TriggerEnables is the answer of an enable or disable of several
// triggers: those done, in the order given (the refused are said apart).
type TriggerEnables struct {
	Triggers []TriggerEnable `json:"triggers"`
}

// NotificationRetry is a retry's answer: the notification made pending
// again.
type NotificationRetry struct {
	Notification Notification `json:"notification"`
}

// NewNotificationRetry is the answer of a retry that left m as it is.
func NewNotificationRetry(m notify.Message) NotificationRetry {
	return NotificationRetry{Notification: NewNotification(m)}
}
