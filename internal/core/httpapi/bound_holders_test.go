package httpapi

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
)

// boundAs is a request's context authenticated with a token bound to
// projects (none: a token of every project).
func boundAs(t *testing.T, projects ...string) context.Context {
	return context.WithValue(t.Context(), principalKey{}, principal{tok: apitoken.Token{Name: "t", Projects: projects}})
}

// A token bound to projects is told which of its own projects' triggers
// hold a single node's slots, and only how many Runs of other projects
// do: naming another team's trigger, in a Run's waiting line or a
// backlog's advice, would show that team's project to it. A token of
// every project sees them all.
func TestABoundTokenIsToldOnlyItsOwnProjectsSlotHolders(t *testing.T) {
	t.Parallel()
	holders := []run.SlotHolder{{Project: "delta", Trigger: "runaway", Runs: 2}, {Project: "alpha", Trigger: "nightly", Runs: 1}}
	kept, others := boundHolders(boundAs(t, "alpha"), holders)
	if want := holders[1:]; !reflect.DeepEqual(kept, want) || others != 2 {
		t.Fatalf("holders told a token of alpha: %+v and %d Runs of others; want %+v and 2", kept, others, want)
	}
	w := run.Waiting{Reason: run.WaitServerBusy, Running: 3, Concurrency: 3, Holders: kept, OtherProjectsRuns: others}
	if msg := w.Message(); !strings.Contains(msg, "held by Runs of alpha/nightly (1), other projects (2)") || strings.Contains(msg, "delta") {
		t.Fatalf("the waiting line told a token of alpha: %q; want alpha/nightly named and other projects counted", msg)
	}
	if kept, others := boundHolders(boundAs(t), holders); !reflect.DeepEqual(kept, holders) || others != 0 {
		t.Fatalf("holders told a token of every project: %+v and %d others; want all of them", kept, others)
	}
}

// A bound token whose Runs queue behind another project's slot holders is
// told that other projects' Runs hold the slots and to ask the server's
// operator, in the backlog's advice and in the Run's waiting line,
// never which project or trigger holds them, and never advice (raise the
// slots, set overlap: skip) that does not fit.
func TestABoundTokenIsToldOtherProjectsHoldTheSlotsWithoutTheirNames(t *testing.T) {
	t.Parallel()
	holders := []run.SlotHolder{{TriggerID: "flood", Project: "runaway", Trigger: "flood", Runs: 3}}
	last := boundLast(boundAs(t, "alpha"), map[string]run.Last{"tg": {TriggerID: "tg", Queued: 15, SlotHolders: holders}})
	warnings := view.WarningsOf(view.Cron{}, last["tg"])
	if len(warnings) != 1 || warnings[0].Message != "backlog: 15 Runs queued behind 3 Runs of other projects holding the slots; ask the server's operator" {
		t.Errorf("backlog told a token of alpha: %+v; want it queued behind 3 Runs of other projects", warnings)
	}
	kept, others := boundHolders(boundAs(t, "alpha"), holders)
	w := run.Waiting{Reason: run.WaitServerBusy, Running: 3, Concurrency: 3, Holders: kept, OtherProjectsRuns: others}
	msg := w.Message()
	if !strings.HasSuffix(msg, "; the slots are held by 3 Runs of other projects; ask the server's operator") || strings.Contains(msg, "runaway") {
		t.Errorf("the waiting line told a token of alpha: %q; want other projects said to hold the slots, unnamed", msg)
	}
	if got := view.NewWaiting(&w).RunOf().Message(); got != msg {
		t.Errorf("the waiting line as the command line rebuilds it from the API: %q; want %q", got, msg)
	}
	every := view.WarningsOf(view.Cron{}, run.Last{TriggerID: "tg", Queued: 15, SlotHolders: holders})
	if len(every) != 1 || !strings.Contains(every[0].Message, "runaway/flood's 3 running; pause that trigger") {
		t.Errorf("backlog told a token of every project: %+v; want the holder named", every)
	}
}
