package pgstore

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
)

var _ notify.Outbox = (*Runtime)(nil)

// enqueueNotifications writes the outbox rows of a Run that has just
// reached the terminal state to, in the transaction that moved it: a
// project without rules costs one primary-key read. The history reads the
// Runs committed before this transaction's statements; two Runs of one
// trigger finishing at the same instant may each not see the other.
func enqueueNotifications(ctx context.Context, tx querier, runID string, to run.State, errorCode string, signal int) error {
	var specJSON string
	var now int64
	var attemptID string
	var startedAt *int64
	var manual string
	f := notify.Finished{RunID: runID, State: to, ErrorCode: errorCode, Signal: signal,
		UntilLastHeard: endedWhenLastHeard(to, errorCode)}
	if err := tx.QueryRow(ctx, sqlNotifyFacts, runID).Scan(&specJSON, &f.ProjectName, &f.ProjectID, &f.TriggerID, &f.TriggerName,
		&f.ScheduledForMs, &now, &f.TriggerTitle, &f.FinishedAtMs, &f.ProjectTitle); err != nil {
		return err
	}
	if specJSON == "" {
		return nil
	}
	if err := tx.QueryRow(ctx, sqlNotifyRunFacts, runID).Scan(&f.TaskName, &f.TaskTitle, &f.Attempt, &f.ExitCode, &attemptID, &startedAt, &manual); err != nil {
		return err
	}
	if startedAt != nil {
		f.StartedAtMs = *startedAt
	}
	f.Origin = run.OriginOf(manual)
	spec, err := notify.Decode(specJSON)
	if err != nil {
		return err
	}
	if spec.OutputLines() > 0 && attemptID != "" {
		if f.Output, f.OutputWhole, err = logTail(ctx, tx, attemptID); err != nil {
			return err
		}
	}
	var previous []run.State
	if n := spec.History(); n > 0 && f.TriggerID != "" {
		rows, err := tx.Query(ctx, sqlNotifyHistory, f.TriggerID, runID, n)
		if err != nil {
			return err
		}
		var s string
		if _, err := pgx.ForEachRow(rows, []any{&s}, func() error {
			previous = append(previous, run.State(s))
			return nil
		}); err != nil {
			return err
		}
	}
	for _, m := range spec.Derive(f, previous, ids.New) {
		if _, err := tx.Exec(ctx, sqlNotifyInsert, m.ID, m.ProjectID, m.RunID, m.RuleKey, m.RunID, string(m.Event),
			notify.EncodeJSON(m.Channel), notify.EncodeJSON(m.Payload), now); err != nil {
			return err
		}
	}
	return nil
}

// logTail reads the last notify.OutputReadBytes of an attempt's log from
// its chunks, and whether they are the whole log.
func logTail(ctx context.Context, tx querier, attemptID string) ([]byte, bool, error) {
	rows, err := tx.Query(ctx, sqlNotifyOutput, attemptID, notify.OutputReadBytes)
	if err != nil {
		return nil, false, err
	}
	var pieces [][]byte
	var start int64 = -1
	size := 0
	var offset int64
	var piece []byte
	if _, err := pgx.ForEachRow(rows, []any{&offset, &piece}, func() error {
		if size < notify.OutputReadBytes {
			pieces = append(pieces, append([]byte(nil), piece...))
			size += len(piece)
			start = offset
		}
		return nil
	}); err != nil {
		return nil, false, err
	}
	var tail []byte
	for i := len(pieces) - 1; i >= 0; i-- {
		tail = append(tail, pieces[i]...)
	}
	if len(tail) > notify.OutputReadBytes {
		start += int64(len(tail) - notify.OutputReadBytes)
		tail = tail[len(tail)-notify.OutputReadBytes:]
	}
	return tail, start == 0, nil
}

func scanMessage(r pgx.Row) (notify.Message, error) {
	var m notify.Message
	var event, channel, payload, state, reason string
	if err := r.Scan(&m.ID, &m.ProjectID, &m.RunID, &m.RuleKey, &event, &channel, &payload, &state, &m.Attempts,
		&m.NextAttemptAtMs, &m.LastError, &reason, &m.CreatedAtMs, &m.DeliveredAtMs, &m.RetriedAtMs, &m.AttemptsBeforeRetry, &m.RetriedBy); err != nil {
		return m, err
	}
	m.Event, m.State, m.LastErrorReason = notify.Event(event), notify.State(state), notify.Reason(reason)
	return m, notify.DecodeMessage(&m, channel, payload)
}

func scanMessages(rows pgx.Rows) ([]notify.Message, error) {
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
// channels' shares, skipping the ones another replica is claiming.
func (r *Runtime) NotificationsClaim(ctx context.Context, c notify.Claim) ([]notify.Message, error) {
	projects := make([]string, 0, len(c.InFlight))
	channels := make([]string, 0, len(c.InFlight))
	counts := make([]int32, 0, len(c.InFlight))
	for ref, n := range c.InFlight {
		projects = append(projects, ref.ProjectID)
		channels = append(channels, ref.Channel)
		counts = append(counts, int32(n)) //nolint:gosec // G115: at most notify.MaxInFlight
	}
	rows, err := r.pool.Query(ctx, sqlNotifyClaim, c.Lease.Milliseconds(), c.Limit, projects, channels, counts, c.PerChannel)
	if err != nil {
		return nil, mapErr(err, "claiming notifications")
	}
	out, err := scanMessages(rows)
	return out, mapErr(err, "claiming notifications")
}

// NotificationDelivered marks a row delivered and makes its channel's rows
// waiting in backoff due at once, in the same statement.
func (r *Runtime) NotificationDelivered(ctx context.Context, id string) error {
	_, err := r.pool.Exec(ctx, sqlNotifyDelivered, id)
	return mapErr(err, "marking notification "+id+" delivered")
}

// NotificationFailed records a failed delivery of the claim that counted
// attempts, its text and its reason (NULL when it has none).
func (r *Runtime) NotificationFailed(ctx context.Context, id string, attempts int, retryIn time.Duration, dead bool, f notify.Failure) error {
	state := notify.Pending
	if dead {
		state = notify.Dead
	}
	_, err := r.pool.Exec(ctx, sqlNotifyFailed, string(state), retryIn.Milliseconds(), f.Text, id, attempts,
		pgtype.Text{String: string(f.Reason), Valid: f.Reason != ""})
	return mapErr(err, "recording a failed delivery of notification "+id)
}

// Outbox listing filters, composed per request after sqlNotifyList
// (sql/notify.sql) so each combination is planned with the listing index of
// its filter (notification_outbox_state_listing_idx,
// notification_outbox_project_listing_idx), numbered as they are added:
// fragments of one dynamic statement, as the run listing's.
const (
	sqlNotifyFilterState   = ` state = $%d`
	sqlNotifyFilterProject = ` project_id = $%d`
	sqlNotifyFilterAfter   = ` id < $%d`
	// A bound token's or console user's projects, by name: filtered
	// before the page is cut, so the page is full of their rows.
	sqlNotifyFilterInProjects = ` project_id IN (SELECT ip.id FROM qinglong.projects ip WHERE ip.name = ANY($%d::text[]))`
	// Newest first: ids are UUIDv7, so id order is creation order.
	sqlNotifyListOrder = ` ORDER BY id DESC LIMIT $%d`
)

// NotificationsList returns one page of outbox rows, newest first, and the
// cursor of the next page ("" when done).
func (r *Runtime) NotificationsList(ctx context.Context, q notify.ListQuery) ([]notify.Message, string, error) {
	if err := q.Check(); err != nil {
		return nil, "", err
	}
	stmt, args := notifyListQuery(q)
	rows, err := r.pool.Query(ctx, stmt, args...)
	if err != nil {
		return nil, "", mapErr(err, "listing notifications")
	}
	out, err := scanMessages(rows)
	if err != nil {
		return nil, "", mapErr(err, "listing notifications")
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
		args = append(args, v)
		where = append(where, strings.Replace(fragment, "%d", strconv.Itoa(len(args)), 1))
	}
	if q.State != "" {
		add(sqlNotifyFilterState, string(q.State))
	}
	if q.ProjectID != "" {
		add(sqlNotifyFilterProject, q.ProjectID)
	}
	if len(q.InProjects) > 0 {
		add(sqlNotifyFilterInProjects, q.InProjects)
	}
	if q.After != "" {
		add(sqlNotifyFilterAfter, q.After)
	}
	stmt := sqlNotifyList
	if len(where) > 0 {
		stmt += " WHERE" + strings.Join(where, " AND")
	}
	args = append(args, q.Limit+1)
	return stmt + strings.Replace(sqlNotifyListOrder, "%d", strconv.Itoa(len(args)), 1), args
}

// NotificationProject returns the name of the project of the row id.
func (r *Runtime) NotificationProject(ctx context.Context, id string) (string, error) {
	if err := notify.CheckID(id); err != nil {
		return "", err
	}
	var name string
	err := r.pool.QueryRow(ctx, sqlNotifyProject, id).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", notify.ErrMissing(id)
	}
	return name, mapErr(err, "placing notification "+id)
}

// NotificationRetry makes a dead row pending and due now, its attempts
// kept and the retry by hand recorded with who asked.
func (r *Runtime) NotificationRetry(ctx context.Context, id, actor string) (notify.Message, error) {
	if err := notify.CheckRetry(id, actor); err != nil {
		return notify.Message{}, err
	}
	var out notify.Message
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		var err error
		if out, err = scanMessage(tx.QueryRow(ctx, sqlNotifyRetry, id, actor)); err != nil {
			return err
		}
		return appendAudit(ctx, tx, &out.RetriedAtMs, out.Retried(actor))
	})
	if !errors.Is(err, pgx.ErrNoRows) {
		return out, mapErr(err, "retrying notification "+id)
	}
	var state string
	switch err := r.pool.QueryRow(ctx, sqlNotifyState, id).Scan(&state); {
	case errors.Is(err, pgx.ErrNoRows):
		return out, notify.ErrMissing(id)
	case err != nil:
		return out, mapErr(err, "retrying notification "+id)
	}
	return out, notify.ErrNotDead(id, notify.State(state))
}
