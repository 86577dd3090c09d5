package schedule

import (
	"context"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// aheadStore is a recordingStore that claims ahead: its take reports the
// instant it was asked to claim to.
type aheadStore struct {
	recordingStore
	dueBy int64
}

func (s *aheadStore) ScheduleTakeHorizon(ctx context.Context, p TakeParams) ([]Ticket, TakeHorizon, error) {
	tks, err := s.ScheduleTake(ctx, p)
	return tks, TakeHorizon{NowMs: t0}, err
}

func (s *aheadStore) ScheduleTakeAhead(ctx context.Context, p TakeParams, dueByMs int64) ([]Ticket, TakeHorizon, error) {
	s.dueBy = dueByMs
	return s.ScheduleTakeHorizon(ctx, p)
}

// TestATicketClaimedAheadIsDecidedAtItsDueTime: a row claimed before it
// falls due is decided at its due time (an admit of that occurrence), a
// row due already at its observation time as always.
func TestATicketClaimedAheadIsDecidedAtItsDueTime(t *testing.T) {
	t.Parallel()
	st := &aheadStore{recordingStore: recordingStore{tickets: []Ticket{
		ticket("ahead", cursor(t0+minute), t0+minute-400, trigger.Skip),
		ticket("due", cursor(t0), t0+minute-400, trigger.FireOnce),
	}}}
	sum, err := Round(context.Background(), st, RoundConfig{PageSize: 4, Parallel: 1, GraceMs: 10_000, NewIDs: sameIDs, DueByMs: t0 + minute})
	if err != nil {
		t.Fatal(err)
	}
	if st.dueBy != t0+minute || sum.Counts[Admitted] != 2 {
		t.Fatalf("claimed ahead to %d, %d admitted; want to %d and both admitted", st.dueBy, sum.Counts[Admitted], t0+minute)
	}
	for _, c := range st.commits {
		want := map[string]int64{"ahead": t0 + minute, "due": t0 + minute - 400}[c.Ticket.TriggerID]
		if c.Ticket.ObservedAtMs != want || c.Decision.Action != Admit {
			t.Fatalf("%s decided at %d (%s), want an admit at %d", c.Ticket.TriggerID, c.Ticket.ObservedAtMs, c.Decision.Action, want)
		}
	}
}

// TestAStoreWithoutClaimsCannotBeAskedToClaimAhead: a store that takes no
// claims refuses a claim ahead with a message, and nothing is committed.
func TestAStoreWithoutClaimsCannotBeAskedToClaimAhead(t *testing.T) {
	t.Parallel()
	st := &recordingStore{tickets: []Ticket{ticket("due", cursor(t0), t0+5, trigger.FireOnce)}}
	_, err := Round(context.Background(), st, RoundConfig{PageSize: 4, Parallel: 1, NewIDs: sameIDs, DueByMs: t0 + minute})
	if !qlerror.Is(err, qlerror.Invalid) || len(st.commits) != 0 {
		t.Fatalf("claim ahead on a store without claims: %v, %d commits; want an invalid-request error and none", err, len(st.commits))
	}
}
