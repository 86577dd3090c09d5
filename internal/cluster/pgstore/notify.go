package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

var _ notify.Outbox = (*Runtime)(nil)

// enqueueNotifications writes the outbox rows of a Run that has just
// reached the terminal state to, in the transaction that moved it: a
// project without rules costs one primary-key read. The history reads the
// Runs committed before this transaction's statements; two Runs of one
// trigger finishing at the same instant may each not see the other.
func enqueueNotifications(ctx context.Context, tx querier, runID string, to run.State, errorCode string) error {
	var specJSON string
	var now int64
	f := notify.Finished{RunID: runID, State: to, ErrorCode: errorCode}
	if err := tx.QueryRow(ctx, sqlNotifyFacts, runID).Scan(&specJSON, &f.ProjectName, &f.ProjectID, &f.TriggerID, &f.TriggerName,
		&f.ScheduledForMs, &now); err != nil {
		return err
	}
	if specJSON == "" {
		return nil
	}
	f.FinishedAtMs = now
	spec, err := notify.Decode(specJSON)
	if err != nil {
		return err
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

func scanMessage(r pgx.Row) (notify.Message, error) {
	var m notify.Message
	var event, channel, payload, state string
	if err := r.Scan(&m.ID, &m.ProjectID, &m.RunID, &m.RuleKey, &event, &channel, &payload, &state, &m.Attempts,
		&m.NextAttemptAtMs, &m.LastError, &m.CreatedAtMs, &m.DeliveredAtMs); err != nil {
		return m, err
	}
	m.Event, m.State = notify.Event(event), notify.State(state)
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

// NotificationDelivered marks a row delivered.
func (r *Runtime) NotificationDelivered(ctx context.Context, id string) error {
	_, err := r.pool.Exec(ctx, sqlNotifyDelivered, id)
	return mapErr(err, "marking notification "+id+" delivered")
}

// NotificationFailed records a failed delivery of the claim that counted
// attempts.
func (r *Runtime) NotificationFailed(ctx context.Context, id string, attempts int, retryIn time.Duration, dead bool, reason string) error {
	state := notify.Pending
	if dead {
		state = notify.Dead
	}
	_, err := r.pool.Exec(ctx, sqlNotifyFailed, string(state), retryIn.Milliseconds(), reason, id, attempts)
	return mapErr(err, "recording a failed delivery of notification "+id)
}

// NotificationsList reads outbox rows, newest first.
func (r *Runtime) NotificationsList(ctx context.Context, q notify.ListQuery) ([]notify.Message, error) {
	rows, err := r.pool.Query(ctx, sqlNotifyList, string(q.State), q.Limit)
	if err != nil {
		return nil, mapErr(err, "listing notifications")
	}
	out, err := scanMessages(rows)
	return out, mapErr(err, "listing notifications")
}

// NotificationRetry makes a dead row pending and due now.
func (r *Runtime) NotificationRetry(ctx context.Context, id string) (notify.Message, error) {
	if err := ids.Validate("notification id", id); err != nil {
		return notify.Message{}, qlerror.Wrap(qlerror.Invalid, err, "give a notification id as printed by `ql notifications list`")
	}
	out, err := scanMessage(r.pool.QueryRow(ctx, sqlNotifyRetry, id))
	if !errors.Is(err, pgx.ErrNoRows) {
		return out, mapErr(err, "retrying notification "+id)
	}
	var state string
	switch err := r.pool.QueryRow(ctx, sqlNotifyState, id).Scan(&state); {
	case errors.Is(err, pgx.ErrNoRows):
		return out, qlerror.New(qlerror.NotFound, "notification %s does not exist (a delivered or dead one is deleted once older than --retention-notifications); `ql notifications list` shows those kept", id)
	case err != nil:
		return out, mapErr(err, "retrying notification "+id)
	}
	return out, qlerror.New(qlerror.FailedPrecondition, "notification %s is %s; only a dead notification can be retried", id, state)
}
