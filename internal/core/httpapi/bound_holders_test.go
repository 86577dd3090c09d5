package httpapi

import (
	"context"
	"reflect"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
)

// A token bound to projects is told which of its own projects' triggers
// hold a single node's slots, and only how many others do: naming another
// team's trigger, in a Run's waiting line or a backlog's advice, would
// show that team's project to it. A token of every project sees them all.
func TestABoundTokenIsToldOnlyItsOwnProjectsSlotHolders(t *testing.T) {
	t.Parallel()
	holders := []run.SlotHolder{{Project: "delta", Trigger: "runaway", Runs: 2}, {Project: "alpha", Trigger: "nightly", Runs: 1}}
	as := func(projects ...string) context.Context {
		return context.WithValue(t.Context(), principalKey{}, principal{tok: apitoken.Token{Name: "t", Projects: projects}})
	}
	kept, more := boundHolders(as("alpha"), holders, 1)
	if want := holders[1:]; !reflect.DeepEqual(kept, want) || more != 2 {
		t.Fatalf("holders told a token of alpha: %+v and %d more; want %+v and 2 more", kept, more, want)
	}
	last := boundLast(as("alpha"), map[string]run.Last{"tg": {SlotHolders: holders[:1]}})
	if l := last["tg"]; len(l.SlotHolders) != 0 || l.MoreSlotHolders != 1 {
		t.Fatalf("a backlog's holders told a token of alpha: %+v; want none named, 1 more", l)
	}
	if kept, more := boundHolders(as(), holders, 1); !reflect.DeepEqual(kept, holders) || more != 1 {
		t.Fatalf("holders told a token of every project: %+v and %d more; want all of them", kept, more)
	}
}
