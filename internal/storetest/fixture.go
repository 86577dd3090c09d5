// Package storetest is the conformance suite every storage adapter runs: the
// guarantees of the catalog and schedule contracts (fences, idempotency,
// atomicity, ordering) are written once here and executed against
// PostgreSQL and SQLite alike.
package storetest

import (
	"context"
	"testing"

	"github.com/qinglong/qinglong/internal/catalog"
	"github.com/qinglong/qinglong/internal/schedule"
)

// Row is the observable state of one schedule row.
type Row struct {
	TriggerRevision   int64
	NextFireAtMs      *int64
	LastScheduledAtMs *int64
	StateVersion      int64
	ClaimOwner        *string // always nil on single-node profiles
	ClaimVersion      int64   // 0 on single-node profiles
}

// Counts are the durable facts of one occurrence or trigger.
type Counts struct {
	Runs, Attempts, Events int
}

// Fixture is one fresh, empty, migrated store for one test.
type Fixture struct {
	Catalog  catalog.Store
	Schedule schedule.Store
	// Executor the adapter admits for (remote_worker or local_process).
	Service catalog.Service
	// Row reads the schedule row of a trigger.
	Row func(ctx context.Context, triggerID string) (Row, error)
	// Counts counts runs, attempts and events of a trigger.
	Counts func(ctx context.Context, triggerID string) (Counts, error)
	// MakeDue sets a trigger's cursor to the adapter's "now" minus lateMs,
	// using the adapter's own time authority.
	MakeDue func(ctx context.Context, triggerID string, lateMs int64) error
	// NowMs is the adapter's time authority (database clock or injected
	// clock), for assertions.
	NowMs func(ctx context.Context) (int64, error)
}

// Factory builds a fresh Fixture for a test.
type Factory func(t *testing.T) Fixture
