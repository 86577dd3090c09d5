package notify

import (
	"context"
	"fmt"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Said is t's outcome in the words of its audit record and of a refusal
// that could not record it: "delivered, HTTP 200", "delivered, the mail
// server took it", or "not delivered (REASON, HTTP 502): what the
// receiver said", its secrets masked as the failure's text has them.
func (t Trial) Said() string {
	switch {
	case t.Delivered && t.Status == 0:
		return "delivered, the mail server took it"
	case t.Delivered:
		return fmt.Sprintf("delivered, HTTP %d", t.Status)
	}
	why := string(t.Failure.Reason)
	if t.Status != 0 {
		why += fmt.Sprintf(", HTTP %d", t.Status)
	}
	return "not delivered (" + why + "): " + t.Failure.Text
}

// Tested is the audit record of the test message t that actor sent to
// channel c of project: the channel by name, never its address or
// secrets; the note is the outcome (Said).
func (t Trial) Tested(actor, project string, c Channel) audit.Entry {
	return audit.Entry{Actor: actor, Action: audit.ChannelTested, ObjectKind: audit.KindChannel, ObjectID: project + "/" + c.Name, ObjectName: c.Name, Project: project, Note: t.Said()}
}

// RecordTrial appends the record of the test message t that actor sent
// to channel c of project, once it went. A record that cannot be written
// is an error saying the outcome all the same, with reason
// audit_not_recorded as audit.RecordDone's: the message cannot be called
// back, and a failed record must hide neither how the test went nor that
// the trail lacks it.
func RecordTrial(ctx context.Context, a audit.Appender, actor, project string, c Channel, t Trial) error {
	e := t.Tested(actor, project, c)
	if err := a.AuditAppend(ctx, e); err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "the test message to channel %s of project %s went: %s; but the audit trail could not record the test (%s): "+
			"note who made it elsewhere, and fix the database before the next test", c.Name, project, t.Said(), string(e.Action)).
			Because(audit.RefusalNotRecorded, "action", string(e.Action), "name", e.ObjectName)
	}
	return nil
}
