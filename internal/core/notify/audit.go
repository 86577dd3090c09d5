package notify

import "github.com/qinglong/qinglong/internal/core/audit"

// Retried is the audit record of m's retry by hand by actor: the
// channel's name and the event, never the channel's address or secrets.
func (m Message) Retried(actor string) audit.Entry {
	note := string(m.Event)
	if m.RunID != "" {
		note += " of Run " + m.RunID
	}
	return audit.Entry{Actor: actor, Action: audit.NotificationRetried, ObjectKind: audit.KindNotification, ObjectID: m.ID, ObjectName: m.Channel.Name, Project: m.Payload.Project, Note: note}
}
