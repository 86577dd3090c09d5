package audit

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Page sizes of a listing.
const (
	DefaultListed = 100
	MaxListed     = 1000
)

// RefusalAuditQuery is the reason of a listing whose filter or cursor is
// not one the trail can answer.
const RefusalAuditQuery qlerror.Reason = "audit_query"

// Query selects records newest first: SinceMs 0 is from the first,
// Actor, Action and Project "" every one; Projects, when not nil, keeps
// only records of those projects (a token bound to projects sees no
// record of another project, nor one of no project). After is the Cursor
// of the previous page's last record; Limit 0 is DefaultListed.
type Query struct {
	SinceMs  int64
	Actor    string
	Action   Action
	Project  string
	Projects []string
	After    string
	Limit    int
}

// Check refuses an unknown action, a cursor that is none and a limit
// outside 1–MaxListed, and fills in the default limit.
func (q *Query) Check() error {
	if q.Action != "" && !slices.Contains(Actions, q.Action) {
		return qlerror.New(qlerror.Invalid, "audit listing: action %q is none of %s", q.Action, actionsText()).Because(RefusalAuditQuery, "action", string(q.Action))
	}
	if q.After != "" {
		if _, _, err := ParseCursor(q.After); err != nil {
			return err
		}
	}
	if q.Limit == 0 {
		q.Limit = DefaultListed
	}
	if q.Limit < 1 || q.Limit > MaxListed {
		return qlerror.New(qlerror.Invalid, "audit listing: limit %d is outside 1–%d", q.Limit, MaxListed).Because(RefusalAuditQuery, "limit", strconv.Itoa(q.Limit))
	}
	return nil
}

// Cursor is where the page after r starts: its time and key, so that
// records written meanwhile (newer ones) never shift a later page.
func Cursor(r Record) string { return strconv.FormatInt(r.AtMs, 10) + "." + r.Key }

// ParseCursor splits a Cursor into its time and key.
func ParseCursor(c string) (int64, string, error) {
	ms, key, ok := strings.Cut(c, ".")
	at, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil || key == "" || at < 0 {
		return 0, "", qlerror.New(qlerror.Invalid, "audit listing: cursor %q is not one a listing gave; start again without it", c).Because(RefusalAuditQuery, "cursor", c)
	}
	return at, key, nil
}

// Page is one page of a listing; Next is the cursor of the page after it
// ("" on the last page).
type Page struct {
	Records []Record `json:"records"`
	Next    string   `json:"next,omitempty"`
}

// Reader lists the trail: the records of this package's table merged with
// the trigger schedule's audit records, newest first.
type Reader interface {
	AuditList(ctx context.Context, q Query) (Page, error)
}

// PageOf makes a page from up to q.Limit+1 rows read: the extra row says
// a next page exists.
func PageOf(rows []Record, limit int) Page {
	if len(rows) <= limit {
		return Page{Records: rows}
	}
	rows = rows[:limit]
	return Page{Records: rows, Next: Cursor(rows[len(rows)-1])}
}

func actionsText() string {
	out := make([]string, len(Actions))
	for i, a := range Actions {
		out[i] = string(a)
	}
	return strings.Join(out, ", ")
}
