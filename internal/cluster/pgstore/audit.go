package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/ids"
)

var (
	_ audit.Reader   = (*Admin)(nil)
	_ audit.Reader   = (*Runtime)(nil)
	_ audit.Appender = (*Runtime)(nil)
)

// AuditAppend records e in a transaction of its own, at the database's
// clock: the record of an action that changes nothing in the database (a
// channel's test message), which the runtime role may append.
func (s *Runtime) AuditAppend(ctx context.Context, e audit.Entry) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return appendAudit(ctx, tx, nil, e)
	})
	return mapErr(err, "recording "+string(e.Action))
}

// appendAudit writes e's record in tx at atMs, or at the database's clock
// when atMs is nil: the caller's change and its record commit together or
// not at all.
func appendAudit(ctx context.Context, tx pgx.Tx, atMs *int64, e audit.Entry) error {
	e = e.Bounded()
	_, err := tx.Exec(ctx, sqlAuditInsert, ids.New(), atMs, e.Actor, string(e.Action), string(e.ObjectKind), e.ObjectID, e.ObjectName, e.Project, e.Note)
	return err
}

// AuditList reads one page of the trail, newest first (`ql audit list`
// with the admin role's URL).
func (a *Admin) AuditList(ctx context.Context, q audit.Query) (audit.Page, error) {
	return auditList(ctx, a.pool, q)
}

// AuditList reads one page of the trail, newest first (the API, the
// console and `ql audit list` with the runtime role's URL).
func (s *Runtime) AuditList(ctx context.Context, q audit.Query) (audit.Page, error) {
	return auditList(ctx, s.pool, q)
}

func auditList(ctx context.Context, pool *pgxpool.Pool, q audit.Query) (audit.Page, error) {
	if err := q.Check(); err != nil {
		return audit.Page{}, err
	}
	var beforeMs *int64
	var beforeKey *string
	if q.After != "" {
		ms, key, err := audit.ParseCursor(q.After)
		if err != nil {
			return audit.Page{}, err
		}
		beforeMs, beforeKey = &ms, &key
	}
	rows, err := pool.Query(ctx, sqlAuditList, q.SinceMs, q.Actor, string(q.Action), q.Project, beforeMs, beforeKey, q.Projects, q.Limit+1)
	if err != nil {
		return audit.Page{}, mapErr(err, "listing the audit trail")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (audit.Record, error) {
		var r audit.Record
		err := row.Scan(&r.Key, &r.AtMs, &r.Actor, &r.Action, &r.ObjectKind, &r.ObjectID, &r.ObjectName, &r.Project, &r.Note)
		return r, err
	})
	if err != nil {
		return audit.Page{}, mapErr(err, "listing the audit trail")
	}
	return audit.PageOf(out, q.Limit), nil
}
