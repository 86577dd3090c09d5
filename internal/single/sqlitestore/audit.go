package sqlitestore

import (
	"context"
	"encoding/json"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/ids"
)

var (
	_ audit.Reader   = (*Store)(nil)
	_ audit.Appender = (*Store)(nil)
)

// AuditAppend records e in a transaction of its own, at the store's
// time: the record of a change made outside the database (a secret's).
func (s *Store) AuditAppend(ctx context.Context, e audit.Entry) error {
	return s.write(ctx, "record "+string(e.Action), durable, func(tx *txn) error {
		return appendAudit(ctx, tx, s.nowMs(), e)
	})
}

// appendAudit writes e's record in tx, at the store's time atMs: the
// caller's change and its record commit together or not at all.
func appendAudit(ctx context.Context, tx *txn, atMs int64, e audit.Entry) error {
	e = e.Bounded()
	_, err := tx.ExecContext(ctx, qAuditInsert, ids.New(), atMs, e.Actor, string(e.Action), string(e.ObjectKind), e.ObjectID, e.ObjectName, e.Project, e.Note)
	return err
}

// AuditList reads one page of the trail, newest first.
func (s *Store) AuditList(ctx context.Context, q audit.Query) (audit.Page, error) {
	if err := q.Check(); err != nil {
		return audit.Page{}, err
	}
	var beforeMs, beforeKey any
	if q.After != "" {
		ms, key, err := audit.ParseCursor(q.After)
		if err != nil {
			return audit.Page{}, err
		}
		beforeMs, beforeKey = ms, key
	}
	var only any
	if q.Projects != nil {
		b, err := json.Marshal(q.Projects)
		if err != nil {
			return audit.Page{}, err
		}
		only = string(b)
	}
	var rows []audit.Record
	err := s.read(ctx, "list the audit trail", func(tx *txn) error {
		rs, err := tx.QueryContext(ctx, qAuditList, q.SinceMs, q.Actor, string(q.Action), q.Project, beforeMs, beforeKey, only, q.Limit+1)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var r audit.Record
			if err := rs.Scan(&r.Key, &r.AtMs, &r.Actor, &r.Action, &r.ObjectKind, &r.ObjectID, &r.ObjectName, &r.Project, &r.Note); err != nil {
				return err
			}
			rows = append(rows, r)
		}
		return rs.Err()
	})
	if err != nil {
		return audit.Page{}, err
	}
	return audit.PageOf(rows, q.Limit), nil
}
