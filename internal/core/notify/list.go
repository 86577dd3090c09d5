package notify

import (
	"context"
	"slices"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// States lists every state of an outbox row.
var States = []State{Pending, Delivered, Dead}

// Page sizes of a listing: the default of `ql notifications list` and the
// API, and the most one page holds.
const (
	DefaultListed = 100
	MaxListed     = 500
)

// The refusals of a listing and a retry, which the console says in the
// page's language.
const (
	// RefusalNotANotificationID: a retry's id is not an id (a listing's
	// cursor that is none is every listing's run.RefusalListNotAnID).
	RefusalNotANotificationID qlerror.Reason = "not_a_notification_id"
	// RefusalNotificationMissing: no row has the id (retention deletes
	// delivered and dead ones once old enough).
	RefusalNotificationMissing qlerror.Reason = "notification_missing"
	// RefusalNotificationNotDead: only a dead row is retried; the param
	// "notification" is the row's state.
	RefusalNotificationNotDead qlerror.Reason = "notification_not_dead"
	// RefusalNotificationState: a listing's state is none of States.
	RefusalNotificationState qlerror.Reason = "notification_state"
)

// CodeRetried is the log line of a retry asked over the API or in the
// console, naming the notification and who asked.
const CodeRetried = "notify.retried"

// ListQuery selects outbox rows, newest first (by id: a UUIDv7, minted as
// the row is written, so id order is creation order). State "" is every
// state, ProjectID "" every project; After is the last id of the previous
// page; Limit 0 is DefaultListed.
type ListQuery struct {
	State     State
	ProjectID string
	After     string
	Limit     int
	// InProjects keeps the rows of the projects of these names only (a
	// project-bound token's or console user's projects), filtered before
	// the page is cut; nil for every project.
	InProjects []string
}

// Check refuses a state that is none, a project or cursor that is no id
// and a limit outside 1–MaxListed, and fills in the default limit.
func (q *ListQuery) Check() error {
	if q.State != "" && !slices.Contains(States, q.State) {
		return qlerror.New(qlerror.Invalid, "notification listing: state %q is not one of pending, delivered, dead", q.State).Because(RefusalNotificationState)
	}
	if q.ProjectID != "" {
		if err := ids.Validate("project", q.ProjectID); err != nil {
			return qlerror.Wrap(qlerror.Invalid, err, "notification listing: give the project as its id, as `ql triggers list -o json` prints it (or its name, which `ql notifications list --project` resolves)").
				Because(run.RefusalListNotAnID, "parameter", "project", "value", qlerror.Echoed(q.ProjectID))
		}
	}
	if q.After != "" {
		if err := ids.Validate("after", q.After); err != nil {
			return qlerror.Wrap(qlerror.Invalid, err, "notification listing: give the cursor as the id of the last notification of the previous page, as `ql notifications list` prints it").
				Because(run.RefusalListNotAnID, "parameter", "after", "value", qlerror.Echoed(q.After))
		}
	}
	switch {
	case q.Limit == 0:
		q.Limit = DefaultListed
	case q.Limit < 0 || q.Limit > MaxListed:
		return qlerror.New(qlerror.Invalid, "notification listing: limit %d is outside 1–%d", q.Limit, MaxListed)
	}
	return nil
}

// Page cuts rows, read with one more than q.Limit, to the page and returns
// the cursor of the next one ("" when this is the last).
func (q ListQuery) Page(rows []Message) ([]Message, string) {
	if len(rows) <= q.Limit {
		return rows, ""
	}
	rows = rows[:q.Limit]
	return rows, rows[len(rows)-1].ID
}

// MaxActor is the longest actor a retry by hand records, as an audit
// record holds it.
const MaxActor = 128

// CheckRetry refuses a retry of an id that is none, or one that does not
// say who asked (within MaxActor bytes).
func CheckRetry(id, actor string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	if actor == "" || len(actor) > MaxActor {
		return qlerror.New(qlerror.Invalid, "a retry by hand must name who asked in 1–%d bytes, not %d", MaxActor, len(actor))
	}
	return nil
}

// CheckID refuses a notification id that is none.
func CheckID(id string) error {
	if err := ids.Validate("notification id", id); err != nil {
		return qlerror.Wrap(qlerror.Invalid, err, "give a notification id as printed by `ql notifications list`").Because(RefusalNotANotificationID)
	}
	return nil
}

// ErrMissing is the refusal of a retry of an id no row has.
func ErrMissing(id string) error {
	return qlerror.New(qlerror.NotFound, "notification %s does not exist (a delivered or dead one is deleted once older than --retention-notifications); `ql notifications list` shows those kept", id).
		Because(RefusalNotificationMissing)
}

// ErrNotDead is the refusal of a retry of a row in state, which is not
// dead.
func ErrNotDead(id string, state State) error {
	return qlerror.New(qlerror.FailedPrecondition, "notification %s is %s; only a dead notification can be retried", id, state).
		Because(RefusalNotificationNotDead, "notification", state)
}

// Placer finds the project of an outbox row, so that a retry asked by a
// token or console user bound to projects is checked before it is made.
type Placer interface {
	// NotificationProject returns the name of the project of the row id;
	// an id that is none is refused as a retry's is (CheckRetry), a
	// missing row is ErrMissing.
	NotificationProject(ctx context.Context, id string) (string, error)
}

// Manager is what people do with the outbox: list it and retry dead rows
// (`ql notifications`, the API, the console). Times are the store's clock.
type Manager interface {
	// NotificationsList returns one page of rows, newest first, and the
	// cursor of the next ("" when done); a query Check refuses is refused.
	NotificationsList(ctx context.Context, q ListQuery) (rows []Message, next string, err error)
	// NotificationRetry makes a dead row pending and due now, with the
	// same id (idempotency key), its attempts kept and the retry recorded
	// (RetriedAtMs, AttemptsBeforeRetry, and actor as RetriedBy): the
	// limit of attempts counts from the retry. A retry CheckRetry refuses
	// changes nothing.
	NotificationRetry(ctx context.Context, id, actor string) (Message, error)
}
