package view

import "github.com/qinglong/qinglong/internal/core/notify"

// Notification is the stable shape of an outbox row, as `ql notifications
// list -o json` and GET /api/v1/notifications give it: the channel by
// name and kind only, never a URL, which may carry a token.
type Notification struct {
	ID    string `json:"id"`
	State string `json:"state"`
	Event string `json:"event"`
	// RunState is how the Run ended, which a finished rule's event does
	// not say (absent for a skipped occurrence).
	RunState    string `json:"runState,omitempty"`
	Project     string `json:"project"`
	Trigger     string `json:"trigger,omitempty"`
	RunID       string `json:"runId,omitempty"`
	Channel     string `json:"channel"`
	ChannelKind string `json:"channelKind"`
	// Attempts counts every delivery the notification was given, those
	// before a retry by hand too.
	Attempts int `json:"attempts"`
	// RetriedAtMs is when it was last retried by hand,
	// AttemptsBeforeRetry how many attempts it had then and RetriedBy who
	// asked, as the audit trail names an actor (all absent when it never
	// was; RetriedBy also for a retry recorded by an older build).
	RetriedAtMs         *int64 `json:"retriedAtMs,omitempty"`
	AttemptsBeforeRetry int    `json:"attemptsBeforeRetry,omitempty"`
	RetriedBy           string `json:"retriedBy,omitempty"`
	// NextAttemptAtMs is when a pending row is next sent (absent for a
	// delivered or dead one), as stored. DueNow says the row is due from
	// its creation (new or brought forward, notify.Message.DueNow): its
	// NextAttemptAtMs is its creation time, in the past, and it goes at
	// the deliverer's next round.
	NextAttemptAtMs *int64 `json:"nextAttemptAtMs,omitempty"`
	DueNow          bool   `json:"dueNow,omitempty"`
	LastError       string `json:"lastError,omitempty"`
	// LastErrorReason is why the last attempt failed, as a code of
	// notify.Reasons (absent when none is known: never failed, delivered,
	// or failed by an older build).
	LastErrorReason string `json:"lastErrorReason,omitempty"`
	CreatedAtMs     int64  `json:"createdAtMs"`
	DeliveredAtMs   *int64 `json:"deliveredAtMs,omitempty"`
	// RuleScope is what the rule that sent it covers, as the project's
	// definitions have that rule now; absent when they no longer have
	// it (it was changed or removed since).
	RuleScope *RuleScope `json:"ruleScope,omitempty"`
}

// RuleScope is what a notification rule covers: the whole project when
// it names no task and no trigger, else the Runs (and occurrences passed
// over) of the tasks and triggers it names.
type RuleScope struct {
	Project  string   `json:"project"`
	Tasks    []string `json:"tasks,omitempty"`
	Triggers []string `json:"triggers,omitempty"`
}

// NotificationList is one page of notifications and the cursor of the
// next.
type NotificationList struct {
	Notifications []Notification `json:"notifications"`
	Next          string         `json:"next,omitempty"`
}

// NewNotification shapes m.
func NewNotification(m notify.Message) Notification {
	v := Notification{ID: m.ID, State: string(m.State), Event: string(m.Event), RunState: m.Payload.RunState, Project: m.Payload.Project, Trigger: m.Payload.Trigger,
		RunID: m.RunID, Channel: m.Channel.Name, ChannelKind: string(m.Channel.Kind), Attempts: m.Attempts, LastError: m.LastError,
		LastErrorReason: string(m.LastErrorReason), CreatedAtMs: m.CreatedAtMs}
	if m.State == notify.Pending {
		v.NextAttemptAtMs, v.DueNow = &m.NextAttemptAtMs, m.DueNow()
	}
	if m.DeliveredAtMs != 0 {
		v.DeliveredAtMs = &m.DeliveredAtMs
	}
	if m.RetriedAtMs != 0 {
		v.RetriedAtMs, v.AttemptsBeforeRetry, v.RetriedBy = &m.RetriedAtMs, m.AttemptsBeforeRetry, m.RetriedBy
	}
	if s := m.Scope; s != nil {
		v.RuleScope = &RuleScope{Project: s.Project, Tasks: s.Tasks, Triggers: s.Triggers}
	}
	return v
}

// NewNotifications shapes rows, in their order.
func NewNotifications(rows []notify.Message) []Notification {
	out := make([]Notification, 0, len(rows))
	for _, m := range rows {
		out = append(out, NewNotification(m))
	}
	return out
}

// NewNotificationList shapes a page of notifications.
func NewNotificationList(rows []notify.Message, next string) NotificationList {
	return NotificationList{Notifications: NewNotifications(rows), Next: next}
}
