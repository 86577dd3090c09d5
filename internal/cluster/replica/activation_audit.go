package replica

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/audit"
)

var _ audit.Reader = liveReaders{}

func (l liveReaders) AuditList(ctx context.Context, q audit.Query) (audit.Page, error) {
	rt, err := l.runtime()
	if err != nil {
		return audit.Page{}, err
	}
	return rt.AuditList(ctx, q)
}

// AuditAppend records e through the current activation's runtime role.
func (l liveReaders) AuditAppend(ctx context.Context, e audit.Entry) error {
	rt, err := l.runtime()
	if err != nil {
		return err
	}
	return rt.AuditAppend(ctx, e)
}
