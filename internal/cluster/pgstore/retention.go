package pgstore

import (
	"context"
	"math"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
)

// RetentionOptions pace retention on PostgreSQL. A batch locks only
// ended Runs no admission touches, but it shares the server's CPU,
// buffer cache and WAL with admission: each deleted Run writes its Run,
// attempt, events and log chunks to the WAL, mostly as full pages (the
// oldest pages, untouched since the last checkpoint), and every admission
// commit flushes whatever was written before it. So batches stay small and
// take a twentieth of the time at most: at a tenth, admission beside a
// 1,000,000-Run backlog still measured a few percent slower on a quiet
// machine, at a twentieth no slower; that still deletes hundreds of Runs a
// second on a quiet 2-core machine, tens of millions a day.
var RetentionOptions = retention.Options{BatchSize: 64, Share: 0.05}

// maintenanceConns bounds the maintenance pool: retention runs one batch
// at a time.
const maintenanceConns = 2

// Maintenance is the maintenance role's store: retention.Store over its
// own small pool. The runtime role cannot delete Runs, attempts, events,
// logs or notifications; only this role can.
type Maintenance struct {
	pool  *pgxpool.Pool
	roles Roles
}

var _ retention.Store = (*Maintenance)(nil)

// OpenMaintenance connects as the maintenance role.
func OpenMaintenance(ctx context.Context, url, rolePrefix string) (*Maintenance, error) {
	if err := (RolesConfig{Prefix: rolePrefix}).Validate(); err != nil {
		return nil, err
	}
	pool, err := openPool(ctx, url, maintenanceConns, 0, maintenanceStatementTimeout, maintenanceIdleTimeout)
	if err != nil {
		return nil, err
	}
	return &Maintenance{pool: pool, roles: RoleNames(rolePrefix)}, nil
}

// Close releases the pool.
func (m *Maintenance) Close() { m.pool.Close() }

// Ready runs the readiness checks on one of the maintenance connections.
func (m *Maintenance) Ready(ctx context.Context) error {
	return checkReadiness(ctx, m.pool, m.roles)
}

// RetentionBatch deletes one batch in one READ COMMITTED transaction; the
// rows it deletes are locked FOR UPDATE SKIP LOCKED, so concurrent passes
// (other replicas, `ql retention run`) share the work without deleting
// anything twice.
//
// A batch that finds its connection lost is run once more at once on a
// fresh one: a server restart ends every session of the pool, idle ones
// included, and the pool would hand the next batch a connection that is
// already dead. Only a refused login or a missing privilege points the
// operator at the maintenance role; a database still gone after the second
// try is reported as unavailable, and the next pass tries again.
//
// Logs are chunks in the database, deleted in the batch's transaction:
// there is no file that could stay behind, so nothing is ever kept.
func (m *Maintenance) RetentionBatch(ctx context.Context, b retention.Batch) (retention.Result, error) {
	d, more, err := m.retentionBatch(ctx, b)
	if err != nil && connectionLost(err) && ctx.Err() == nil {
		// Deleting is idempotent: if the lost batch committed, the second
		// deletes the next rows and only the first one's counts are missed.
		m.pool.Reset()
		d, more, err = m.retentionBatch(ctx, b)
	}
	if err != nil {
		what := "retention (" + string(b.Kind) + ")"
		if deniedRole(err) {
			what += "; it needs the maintenance role (`ql db roles`)"
		}
		return retention.Result{}, mapErr(err, what)
	}
	return retention.Result{Deleted: d, More: more}, nil
}

func (m *Maintenance) retentionBatch(ctx context.Context, b retention.Batch) (retention.Deleted, bool, error) {
	var d retention.Deleted
	var more bool
	err := inTx(ctx, m.pool, func(tx pgx.Tx) error {
		d, more = retention.Deleted{}, false
		switch b.Kind {
		case retention.KindRuns:
			if _, err := tx.Exec(ctx, sqlRetentionSettings); err != nil {
				return err
			}
			// The rows of replicas long gone go with the runs rule: a
			// small table, one short statement, no counts to report.
			if _, err := tx.Exec(ctx, sqlReplicaPrune, replicaKeep.Milliseconds(), replicaPrunePage); err != nil {
				return err
			}
			err := tx.QueryRow(ctx, sqlRetentionRuns, b.OlderThan.Milliseconds(), b.Limit).Scan(&d.Runs, &d.Attempts, &d.Events, &d.Logs, &d.LogBytes)
			more = d.Runs == int64(b.Limit)
			return err
		case retention.KindLogs:
			logs, err := lockedLogs(ctx, tx, sqlRetentionLogsAged, b.OlderThan.Milliseconds(), b.Limit)
			if err != nil {
				return err
			}
			more = len(logs) == b.Limit
			d, err = deleteLogs(ctx, tx, logs)
			return err
		case retention.KindLogBytes:
			var mine bool
			if err := tx.QueryRow(ctx, sqlRetentionCapLock).Scan(&mine); err != nil || !mine {
				return err
			}
			var total int64
			if err := tx.QueryRow(ctx, sqlRetentionLogBytes).Scan(&total); err != nil || total <= b.MaxLogBytes {
				return err
			}
			logs, err := lockedLogs(ctx, tx, sqlRetentionLogsOldest, b.Limit)
			if err != nil {
				return err
			}
			excess, freed := total-b.MaxLogBytes, int64(0)
			for i, l := range logs {
				if freed += l.bytes; freed >= excess {
					logs = logs[:i+1]
					break
				}
			}
			d, err = deleteLogs(ctx, tx, logs)
			more = d.Logs > 0 && total-d.LogBytes > b.MaxLogBytes
			return err
		case retention.KindNotifications:
			if _, err := tx.Exec(ctx, sqlRetentionSettings); err != nil {
				return err
			}
			err := tx.QueryRow(ctx, sqlRetentionNotifs, b.OlderThan.Milliseconds(), b.Limit).Scan(&d.Notifications)
			more = d.Notifications == int64(b.Limit)
			return err
		case retention.KindSessions:
			tag, err := tx.Exec(ctx, sqlRetentionSessions, b.Limit)
			d.Sessions = tag.RowsAffected()
			more = d.Sessions == int64(b.Limit)
			return err
		}
		return qlerror.New(qlerror.Invalid, "retention: unknown rule %q", b.Kind)
	})
	return d, more, err
}

type heldLog struct {
	id    string
	bytes int64
}

func lockedLogs(ctx context.Context, tx pgx.Tx, sql string, args ...any) ([]heldLog, error) {
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (heldLog, error) {
		var l heldLog
		err := r.Scan(&l.id, &l.bytes)
		return l, err
	})
}

// deleteLogs deletes the chunks of locked attempts; their log_bytes stays
// as the size of the log retention removed.
func deleteLogs(ctx context.Context, tx pgx.Tx, logs []heldLog) (retention.Deleted, error) {
	var d retention.Deleted
	if len(logs) == 0 {
		return d, nil
	}
	ids := make([]string, len(logs))
	for i, l := range logs {
		ids[i] = l.id
		d.LogBytes += l.bytes
	}
	var gone int64
	if err := tx.QueryRow(ctx, sqlRetentionLogsDelete, ids).Scan(&gone); err != nil {
		return d, err
	}
	if gone != int64(len(logs)) {
		return d, qlerror.New(qlerror.Conflict, "retention emptied %d of %d locked logs", gone, len(logs))
	}
	d.Logs = int64(len(logs))
	return d, nil
}

// offAge is an age no finish time is older than: a rule that is off.
const offAge = math.MaxInt64 / 4

// RetentionEstimate counts, in one statement, what a pass under p would
// delete now.
func (m *Maintenance) RetentionEstimate(ctx context.Context, p retention.Policy) (map[retention.Kind]retention.Deleted, error) {
	runsAge, logsAge, notificationsAge := int64(offAge), int64(offAge), int64(offAge)
	if p.NotificationsAge != 0 {
		notificationsAge = p.NotificationsAge.Milliseconds()
	}
	if p.RunsAge != 0 {
		runsAge = p.RunsAge.Milliseconds()
	}
	if p.LogsAge != 0 {
		logsAge = p.LogsAge.Milliseconds()
	}
	var runs, logs retention.Deleted
	var total, notifications, sessions int64
	err := m.pool.QueryRow(ctx, sqlRetentionEstimate, runsAge, logsAge, notificationsAge, p.LogBytes != 0).Scan(
		&runs.Runs, &runs.Attempts, &runs.Events, &runs.Logs, &runs.LogBytes, &logs.Logs, &logs.LogBytes, &total, &notifications, &sessions)
	if err != nil {
		return nil, mapErr(err, "retention estimate")
	}
	return retention.Estimate(p, runs, logs, total, notifications, sessions), nil
}

// RetentionCompact gives nothing back: PostgreSQL's autovacuum makes the
// deleted rows' space reusable, and returning it to the file system would
// take an exclusive lock (VACUUM FULL) that no running cluster should take.
func (m *Maintenance) RetentionCompact(context.Context) (int64, error) { return 0, nil }

// RetentionFinish has nothing to finish: a batch deletes the logs' chunks
// with their attempts, in its transaction, and leaves no file behind.
func (m *Maintenance) RetentionFinish(context.Context) ([]retention.Kept, error) { return nil, nil }
