package schedule

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/trigger"
)

// releasingStore is a recordingStore that holds claims: it races every
// ticket whose trigger id starts with "raced", fails whole pages while
// failPages is set, and records what it is asked to release.
type releasingStore struct {
	recordingStore
	failPages bool
	released  []string
}

func (s *releasingStore) ScheduleCommitPage(ctx context.Context, ps []CommitParams) ([]CommitResult, error) {
	if s.failPages {
		return nil, errors.New("connection reset")
	}
	out, err := s.recordingStore.ScheduleCommitPage(ctx, ps)
	for i, p := range ps {
		if strings.HasPrefix(p.Ticket.TriggerID, "raced") {
			out[i] = ReasonClaimLost.Result()
		}
	}
	return out, err
}

func (s *releasingStore) ScheduleRelease(_ context.Context, tickets []Ticket) (int, error) {
	for _, tk := range tickets {
		s.released = append(s.released, tk.TriggerID)
	}
	return len(tickets), nil
}

// releasePage takes a page of a cron-invalid ticket and the given ones,
// commits it when commit is set, releases what it still holds and returns
// the trigger ids given back.
func releasePage(t *testing.T, st *releasingStore, commit bool, ids ...string) []string {
	t.Helper()
	bad := ticket("bad-cron", cursor(t0), t0+5, trigger.FireOnce)
	bad.Cron.Expression = "not a cron"
	st.tickets = []Ticket{bad}
	for _, id := range ids {
		st.tickets = append(st.tickets, ticket(id, cursor(t0), t0+5, trigger.FireOnce))
	}
	p, err := TakePage(context.Background(), st, RoundConfig{PageSize: 16, Parallel: 1, GraceMs: minute, NewIDs: sameIDs})
	if err != nil {
		t.Fatal(err)
	}
	if commit {
		p.Commit(context.Background(), st)
	}
	n, err := Release(context.Background(), st, p.Held())
	if err != nil || n != len(st.released) {
		t.Fatalf("release: %d, %v; the store released %v", n, err, st.released)
	}
	slices.Sort(st.released)
	return st.released
}

func TestAPageNeverCommittedGivesBackEveryDecidedTicket(t *testing.T) {
	t.Parallel()
	got := releasePage(t, &releasingStore{}, false, "a", "b", "raced-c")
	if want := []string{"a", "b", "raced-c"}; !slices.Equal(got, want) {
		t.Fatalf("released %v, want %v (never the ticket whose decision failed before the commit)", got, want)
	}
}

func TestACommittedPageGivesBackOnlyTheTicketsItsCommitDidNotSettle(t *testing.T) {
	t.Parallel()
	if got := releasePage(t, &releasingStore{}, true, "a", "b", "raced-c"); !slices.Equal(got, []string{"raced-c"}) {
		t.Fatalf("released %v, want only the raced ticket", got)
	}
	if got := releasePage(t, &releasingStore{failPages: true}, true, "a", "b"); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("released %v after a commit that judged nothing, want every decided ticket", got)
	}
}

func TestAStoreThatHoldsNoClaimsIsAskedToReleaseNothing(t *testing.T) {
	t.Parallel()
	st := &recordingStore{tickets: []Ticket{ticket("a", cursor(t0), t0+5, trigger.FireOnce)}}
	p, err := TakePage(context.Background(), st, RoundConfig{PageSize: 16, Parallel: 1, GraceMs: minute, NewIDs: sameIDs})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := Release(context.Background(), st, p.Held()); n != 0 || err != nil {
		t.Fatalf("release through a store without claims: %d, %v; want 0, nil", n, err)
	}
}
