package faults

import (
	"context"
	"errors"
	"testing"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// TestReadinessOnAStandbyIsNotPrimary: a replica pointed at a hot standby —
// which replays the same schema, history and roles, so every other check
// would pass — is refused with not_primary, while the primary it follows
// is ready.
func TestReadinessOnAStandbyIsNotPrimary(t *testing.T) {
	t.Parallel()
	pair := StartSyncPair(t, nil)
	g := installGateDB(t, pair.Primary, "qinglong", true, "")
	roles := pgstore.RoleNames(g.prefix)
	if err := pgstore.Check(t.Context(), g.url(pair.Primary, pgstore.RoleRuntime), roles); err != nil {
		t.Fatalf("the primary is not ready: %v", err)
	}
	var last error
	waitFor(t, replicationTimeout, "the standby to replay the schema and roles and answer readiness", func() bool {
		last = pgstore.Check(context.Background(), g.url(pair.Standby, pgstore.RoleRuntime), roles)
		var re *pgstore.ReadinessError
		return errors.As(last, &re) && re.Code != pgstore.CodeUnavailable
	})
	var re *pgstore.ReadinessError
	if !errors.As(last, &re) || re.Code != pgstore.CodeNotPrimary {
		t.Fatalf("readiness on the standby: %v; want %s", last, pgstore.CodeNotPrimary)
	}
	t.Logf("standby (%s): %s — %s", pair.Standby.Version(), re.Code, re.Message())
}
