package sqlitestore

import (
	"context"
	"database/sql"
	"strings"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var _ schedule.StatusReader = (*Store)(nil)

// TriggerList returns one page of triggers with their schedule state,
// ordered by id, and the cursor of the next page ("" when done).
func (s *Store) TriggerList(ctx context.Context, p schedule.TriggerListParams) ([]schedule.TriggerStatus, string, error) {
	var out []schedule.TriggerStatus
	var next string
	err := s.read(ctx, "list triggers", func(tx *txn) error {
		var err error
		out, next, err = listTriggers(ctx, tx, p)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return out, next, nil
}

// listTriggers is TriggerList in the read transaction tx.
func listTriggers(ctx context.Context, tx *txn, p schedule.TriggerListParams) ([]schedule.TriggerStatus, string, error) {
	limit, err := pageLimit(p.Limit)
	if err != nil {
		return nil, "", err
	}
	if p.ProjectID != "" {
		if err := ids.Validate("projectId", p.ProjectID); err != nil {
			return nil, "", qlerror.Wrap(qlerror.Invalid, err, "trigger listing: give the projectId as the id printed by `ql triggers list`")
		}
	}
	if err := p.CheckCursor(); err != nil {
		return nil, "", err
	}
	pattern, err := p.SearchPattern()
	if err != nil {
		return nil, "", err
	}
	inProjects := ""
	if len(p.InProjects) > 0 {
		inProjects = namesJSON(p.InProjects)
	}
	rows, err := tx.QueryContext(ctx, qTriggersList, p.ProjectID, p.After, limit+1, pattern, inProjects, specPrefilter(p.Search), p.TitlesOnly)
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	var out []schedule.TriggerStatus
	for rows.Next() {
		var t schedule.TriggerStatus
		var enabled, paused, withProject, archived, inNames int
		var mode string
		var next, due, last sql.NullInt64
		var pol policyCols
		if err := rows.Scan(&t.ProjectID, &t.ProjectName, &t.TriggerID, &t.Name, &t.Revision, &enabled,
			&t.Cron.Expression, &t.Cron.Timezone, &t.Cron.MisfirePolicy, &pol.jitter, &pol.start, &pol.end, &pol.window, &pol.overlap,
			&t.TaskID, &t.TaskName, &t.TaskRevision, &next, &due, &last, &t.StateVersion, &paused, &withProject, &archived,
			&t.Title, &t.TaskTitle, &t.ProjectTitle, &inNames, &mode); err != nil {
			return nil, "", err
		}
		pol.into(&t.Cron)
		t.Enabled, t.Paused, t.LastScheduledAtMs = enabled == 1, paused == 1, ptr(last)
		t.PausedWithProject = paused == 1 && withProject == 1
		t.SetCursor(ptr(next), ptr(due))
		t.SetArchived(archived == 1)
		t.FoundIn = schedule.FoundInOf(pattern != "", inNames == 1, mode)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1].TriggerID
	}
	return out, next, nil
}

// specPrefilter is a LIKE pattern every stored spec_json whose command
// holds search matches, "" when there is none: the longest space-free
// word of search, which lies within the script, the program or one
// argument (a search's spaces may fall between arguments, which the spec
// keeps apart), and which the spec holds as typed unless it has a
// character the spec's encoding escapes — a quote, a backslash, a control
// character, U+2028 or U+2029, and <, > and & (encodeSpec's json.Marshal
// escapes them inside the command).
func specPrefilter(search string) string {
	if strings.ContainsFunc(search, func(r rune) bool { return r < 0x20 || strings.ContainsRune("\"\\<>&\u2028\u2029", r) }) {
		return ""
	}
	word := ""
	for _, w := range strings.Fields(search) {
		if len(w) > len(word) {
			word = w
		}
	}
	pattern, err := schedule.TriggerListParams{Search: word}.SearchPattern()
	if err != nil {
		return ""
	}
	return pattern
}
