package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/single/attemptlog"
)

var _ notify.Outbox = (*Store)(nil)

// enqueueNotifications writes the outbox rows of a Run that has just
// ended in state to (terminal, or lost), in the transaction that moved it: a
// project without rules costs one primary-key read.
func enqueueNotifications(ctx context.Context, tx *txn, runID string, to run.State, errorCode string, signal int, now int64) error {
	var specJSON string
	f := notify.Finished{RunID: runID, State: to, ErrorCode: errorCode, Signal: signal, FinishedAtMs: now}
	var triggerName sql.NullString
	var exitCode sql.NullInt64
	var attemptID, logPath string
	var startedAt sql.NullInt64
	var manual string
	if err := tx.QueryRowContext(ctx, qNotifyFacts, runID).Scan(&specJSON, &f.ProjectName, &f.ProjectID, &f.TriggerID, &triggerName, &f.ScheduledForMs, &f.TriggerTitle, &f.ProjectTitle); err != nil {
		return err
	}
	if specJSON == "" {
		return nil
	}
	if err := tx.QueryRowContext(ctx, qNotifyRunFacts, runID).Scan(&f.TaskName, &f.TaskTitle, &f.Attempt, &attemptID, &exitCode, &logPath, &startedAt, &manual); err != nil {
		return err
	}
	f.TriggerName = triggerName.String
	f.StartedAtMs, f.Origin = startedAt.Int64, run.OriginOf(manual)
	if exitCode.Valid {
		code := int(exitCode.Int64)
		f.ExitCode = &code
	}
	spec, err := notify.Decode(specJSON)
	if err != nil {
		return err
	}
	if spec.OutputLines() > 0 && logPath != "" {
		f.Output, f.OutputWhole = logTail(attemptlog.Path(tx.logDir, attemptID))
	}
	var previous []run.State
	if n := spec.History(); n > 0 {
		rows, err := tx.QueryContext(ctx, qNotifyHistory, f.TriggerID, runID, n)
		if err != nil {
			return err
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return err
			}
			previous = append(previous, run.State(s))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	for _, m := range spec.Derive(f, previous, ids.New) {
		if _, err := tx.ExecContext(ctx, qNotifyInsert, m.ID, m.ProjectID, m.RunID, m.RuleKey, m.RunID, string(m.Event),
			notify.EncodeJSON(m.Channel), notify.EncodeJSON(m.Payload), now, now, now); err != nil {
			return err
		}
	}
	return nil
}

// logTail reads the last notify.OutputReadBytes of a log file, and
// whether they are the whole file. A log that cannot be read (removed by
// hand, a disk error) gives a notification without output: the Run's end
// is what it reports, and its log page says what became of the file.
func logTail(path string) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return nil, false
	}
	start := max(info.Size()-notify.OutputReadBytes, 0)
	tail := make([]byte, info.Size()-start)
	n, err := f.ReadAt(tail, start)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false
	}
	return tail[:n], start == 0
}

// skipNotifier reads a trigger's project settings once and returns what
// writes the notifications of each ledger entry the decision writes, in
// its transaction; a project without skipped rules writes nothing more.
func skipNotifier(ctx context.Context, tx *txn, tk schedule.Ticket) (func(seq int64, p schedule.Passed, now int64) error, error) {
	var specJSON string
	k := notify.Skipped{TriggerID: tk.TriggerID}
	if err := tx.QueryRowContext(ctx, qNotifySkipFacts, tk.TriggerID, tk.TriggerRevision).Scan(&specJSON, &k.ProjectID, &k.ProjectName, &k.TriggerName, &k.TaskName, &k.TriggerTitle, &k.ProjectTitle, &k.TaskTitle); err != nil {
		return nil, err
	}
	spec, err := notify.Decode(specJSON)
	if err != nil {
		return nil, err
	}
	return func(seq int64, p schedule.Passed, now int64) error {
		k.Seq, k.Reason, k.FirstMs, k.LastMs, k.Occurrences = seq, string(p.Reason), p.FirstMs, p.LastMs, p.Count
		for _, m := range spec.DeriveSkipped(k, ids.New) {
			if _, err := tx.ExecContext(ctx, qNotifyInsert, m.ID, m.ProjectID, nil, m.RuleKey, notify.SkipSubject(k.TriggerID, seq), string(m.Event),
				notify.EncodeJSON(m.Channel), notify.EncodeJSON(m.Payload), now, now, now); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

type rowScanner interface{ Scan(...any) error }

func scanMessage(r rowScanner) (notify.Message, error) {
	var m notify.Message
	var event, channel, payload, state, reason string
	if err := r.Scan(&m.ID, &m.ProjectID, &m.RunID, &m.RuleKey, &event, &channel, &payload, &state, &m.Attempts,
		&m.NextAttemptAtMs, &m.LastError, &reason, &m.CreatedAtMs, &m.DeliveredAtMs, &m.RetriedAtMs, &m.AttemptsBeforeRetry, &m.RetriedBy); err != nil {
		return m, err
	}
	m.Event, m.State, m.LastErrorReason = notify.Event(event), notify.State(state), notify.Reason(reason)
	return m, notify.DecodeMessage(&m, channel, payload)
}

func scanMessages(rows *sql.Rows) ([]notify.Message, error) {
	defer rows.Close()
	var out []notify.Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// NotificationsClaim takes up to c.Limit due pending rows within their
// channels' shares (one process
// serves a SQLite file, so the write lock is the only claim needed). It
// looks on the read pool first: an idle outbox never takes the writer
// from the scheduler and the executor.
func (s *Store) NotificationsClaim(ctx context.Context, c notify.Claim) ([]notify.Message, error) {
	var due bool
	if err := s.readPool().QueryRowContext(ctx, qNotifyDue, s.nowMs()).Scan(&due); err != nil {
		return nil, mapErr(err, "look for due notifications")
	}
	if !due {
		return nil, nil
	}
	type channelBusy struct {
		Project string `json:"p"`
		Channel string `json:"c"`
		N       int    `json:"n"`
	}
	load := make([]channelBusy, 0, len(c.InFlight))
	for ref, n := range c.InFlight {
		load = append(load, channelBusy{Project: ref.ProjectID, Channel: ref.Channel, N: n})
	}
	busy, err := json.Marshal(load)
	if err != nil {
		return nil, err
	}
	var out []notify.Message
	err = s.write(ctx, "claim notifications", routine, func(tx *txn) error {
		rows, err := tx.QueryContext(ctx, qNotifyClaim, s.nowMs(), c.Lease.Milliseconds(), c.Limit, string(busy), c.PerChannel)
		if err != nil {
			return err
		}
		out, err = scanMessages(rows)
		return err
	})
	if err != nil {
		// The rows were read before the commit a full disk refused:
		// their attempt is not recorded, and a send of them would be
		// repeated by every round as the same first attempt.
		return nil, err
	}
	return out, nil
}

// NotificationDelivered marks a row delivered and makes its channel's rows
// waiting in backoff due at once, in the same write.
func (s *Store) NotificationDelivered(ctx context.Context, id string) error {
	return s.write(ctx, "mark notification delivered", routine, func(tx *txn) error {
		now := s.nowMs()
		if _, err := tx.ExecContext(ctx, qNotifyDelivered, now, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, qNotifyPromote, now, id)
		return err
	})
}

// NotificationFailed records a failed delivery of the claim that counted
// attempts, its text and its reason (NULL when it has none).
func (s *Store) NotificationFailed(ctx context.Context, id string, attempts int, retryIn time.Duration, dead bool, f notify.Failure) error {
	state := notify.Pending
	if dead {
		state = notify.Dead
	}
	return s.write(ctx, "record a failed notification", routine, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, qNotifyFailed, string(state), s.nowMs(), retryIn.Milliseconds(), f.Text, id, attempts,
			sql.NullString{String: string(f.Reason), Valid: f.Reason != ""})
		return err
	})
}

// Outbox listing filters, composed after qNotifyList for the ones a
// query gives (see queries/notify_list.sql for why).
const (
	notifyFilterState   = ` state = ?`
	notifyFilterProject = ` project_id = ?`
	notifyFilterBefore  = ` id < ?`
	// A bound token's or console user's projects, by name (a JSON array),
	// filtered before the page is cut so the page is full of their rows.
	notifyFilterInProjects = ` project_id IN (SELECT p.id FROM projects p WHERE p.name IN (SELECT value FROM json_each(?)))`
	// Newest first: ids are UUIDv7, so id order is creation order.
	notifyListOrder = ` ORDER BY id DESC LIMIT ?`
	// The page's ids are found first, as a list SQLite fills before it
	// returns the first row, as the Runs listing's are (runListPage): the
	// driver interrupts a statement whose context ends only within its
	// first step, and the walk for a page's later rows (a state's rows
	// read through the state's index, filtered by project) would
	// otherwise run to its end past the request's limit. The rows are
	// then read by id, at most a page of them.
	notifyListPage      = `SELECT id FROM notification_outbox`
	notifyListPageOrder = ` ORDER BY id DESC`
)

// NotificationsList returns one page of outbox rows, newest first, and the
// cursor of the next page ("" when done).
func (s *Store) NotificationsList(ctx context.Context, q notify.ListQuery) ([]notify.Message, string, error) {
	if err := q.Check(); err != nil {
		return nil, "", err
	}
	stmt, args := notifyListQuery(q)
	rows, err := s.readPool().QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, "", mapErr(err, "list notifications")
	}
	out, err := scanMessages(rows)
	if err != nil {
		return nil, "", mapErr(err, "list notifications")
	}
	out, next := q.Page(out)
	return out, next, nil
}

// notifyListQuery is the listing statement for q's filters and its
// arguments, one more row than q.Limit to tell whether a page follows.
func notifyListQuery(q notify.ListQuery) (string, []any) {
	var where []string
	var args []any
	add := func(fragment string, v any) {
		where = append(where, fragment)
		args = append(args, v)
	}
	if q.State != "" {
		add(notifyFilterState, string(q.State))
	}
	if q.ProjectID != "" {
		add(notifyFilterProject, q.ProjectID)
	}
	if len(q.InProjects) > 0 {
		add(notifyFilterInProjects, namesJSON(q.InProjects))
	}
	if q.After != "" {
		add(notifyFilterBefore, q.After)
	}
	page := notifyListPage
	if len(where) > 0 {
		page += " WHERE" + strings.Join(where, " AND")
	}
	return qNotifyList + " WHERE id IN (" + page + notifyListOrder + ")" + notifyListPageOrder, append(args, q.Limit+1)
}

// NotificationProject returns the name of the project of the row id.
func (s *Store) NotificationProject(ctx context.Context, id string) (string, error) {
	if err := notify.CheckID(id); err != nil {
		return "", err
	}
	var name string
	err := s.readPool().QueryRowContext(ctx, qNotifyProject, id).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", notify.ErrMissing(id)
	}
	return name, mapErr(err, "place notification "+id)
}

// NotificationRetry makes a dead row pending and due now, its attempts
// kept and the retry by hand recorded with who asked.
func (s *Store) NotificationRetry(ctx context.Context, id, actor string) (notify.Message, error) {
	if err := notify.CheckRetry(id, actor); err != nil {
		return notify.Message{}, err
	}
	var out notify.Message
	err := s.write(ctx, "retry notification "+id, durable, func(tx *txn) error {
		now := s.nowMs()
		var err error
		out, err = scanMessage(tx.QueryRowContext(ctx, qNotifyRetry, now, id, actor))
		if err == nil {
			return appendAudit(ctx, tx, now, out.Retried(actor))
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var state string
		switch err := tx.QueryRowContext(ctx, qNotifyState, id).Scan(&state); {
		case errors.Is(err, sql.ErrNoRows):
			return notify.ErrMissing(id)
		case err != nil:
			return err
		}
		return notify.ErrNotDead(id, notify.State(state))
	})
	return out, err
}

// NotificationsRelease makes every pending row due now. The server calls
// it once at start-up, before it delivers: a claim or a backoff left by a
// process that stopped must not hold a notification back.
func (s *Store) NotificationsRelease(ctx context.Context) error {
	return s.write(ctx, "release notification claims", routine, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, qNotifyRelease, s.nowMs())
		return err
	})
}
